import { publicRoute } from '#shared/edge/kit.ts';
import * as api from '#shared/edge/routes/public.ts';
import { buildOpenApi } from '#shared/edge/openapi.ts';

// Built once per container, on the first request.
let document: ReturnType<typeof buildOpenApi> | undefined;

export const handler = publicRoute(api.openapi, async () => (document ??= buildOpenApi()));
