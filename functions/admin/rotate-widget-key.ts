import { adminRoute } from '#shared/http/kit.ts';
import * as api from '#shared/http/routes/settings.ts';
import { rotateWidgetKey } from '#shared/domain/settings.ts';

export const handler = adminRoute(api.rotateWidgetKey, async ({ tenantId, actor }) => rotateWidgetKey(tenantId, actor));
