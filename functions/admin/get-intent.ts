import { adminRoute } from '#shared/http/kit.ts';
import { ok } from '#shared/http/response.ts';
import { IdParams } from '#shared/http/schema.ts';
import { getIntent } from '#shared/domain/intents.ts';

export const handler = adminRoute({ params: IdParams }, async ({ membership, params }) => ok(await getIntent(membership, params.id)));
