import { publicRoute } from '#shared/http/kit.ts';
import * as api from '#shared/http/routes/public.ts';
import { buildOpenApi } from '#shared/http/openapi.ts';

// Built once per container, on the first request.
let document: ReturnType<typeof buildOpenApi> | undefined;

export const handler = publicRoute(api.openapi, async () => (document ??= buildOpenApi()));
