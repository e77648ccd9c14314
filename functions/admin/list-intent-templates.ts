import { adminRoute } from '#shared/edge/kit.ts';
import * as api from '#shared/edge/routes/intents.ts';
import { intentTemplates } from '#shared/domain/starter/templates.ts';

export const handler = adminRoute(api.listIntentTemplates, async () => ({ items: intentTemplates }));
