import { adminRoute } from '#shared/http/kit.ts';
import { noContent } from '#shared/http/response.ts';
import { IdParams } from '#shared/http/schema.ts';
import { deleteIntent } from '#shared/domain/intents.ts';

export const handler = adminRoute({ params: IdParams }, async ({ membership, params }) => {
  await deleteIntent(membership, params.id);
  return noContent();
});
