import { adminRoute } from '#shared/edge/kit.ts';
import * as api from '#shared/edge/routes/settings.ts';
import { rotateWidgetKey } from '#shared/domain/tenants/settings.ts';

export const handler = adminRoute(api.rotateWidgetKey, async ({ tenantId, actor }) => rotateWidgetKey(tenantId, actor));
