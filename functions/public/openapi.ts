import { publicRoute } from '#shared/http/kit.ts';
import { ok } from '#shared/http/response.ts';
import { buildOpenApi } from '#shared/http/openapi.ts';

// Built once per container, on the first request.
let document: ReturnType<typeof buildOpenApi> | undefined;

export const handler = publicRoute(async () => ok(document ??= buildOpenApi()));
