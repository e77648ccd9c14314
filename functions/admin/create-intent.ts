import { adminRoute } from '#shared/http/kit.ts';
import { created } from '#shared/http/response.ts';
import { IntentBody } from '#shared/http/schemas/intents.ts';
import { createIntent } from '#shared/domain/intents.ts';

export const handler = adminRoute({ body: IntentBody }, async ({ membership, body }) => created(await createIntent(membership, body)));
