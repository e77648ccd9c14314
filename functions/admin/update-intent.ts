import { adminRoute } from '#shared/http/kit.ts';
import { ok } from '#shared/http/response.ts';
import { IdParams } from '#shared/http/schema.ts';
import { IntentBody } from '#shared/http/schemas/intents.ts';
import { replaceIntent } from '#shared/domain/intents.ts';

export const handler = adminRoute(
  { params: IdParams, body: IntentBody },
  async ({ membership, params, body }) => ok(await replaceIntent(membership, params.id, body)),
);
