import { chatRoute } from '#shared/http/kit.ts';
import * as api from '#shared/http/routes/chat.ts';
import { widgetConfig } from '#shared/domain/widget.ts';

export const handler = chatRoute(api.getWidget, async ({ tenantId, origin }) => widgetConfig(tenantId, origin));
