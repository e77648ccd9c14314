import { chatRoute } from '#shared/edge/kit.ts';
import * as api from '#shared/edge/routes/chat.ts';
import { widgetConfig } from '#shared/domain/assistant/widget.ts';

export const handler = chatRoute(api.getWidget, async ({ tenantId, origin }) => widgetConfig(tenantId, origin));
