import { config } from '#shared/core/config.ts';
import { availability, tenantSettings, widgetTheme } from '#shared/domain/tenants/tenant-config.ts';
import { freshTenant } from '#shared/domain/tenants/widget-auth.ts';
import { clock } from '#shared/core/clock.ts';

/** What the widget shows before the first message, from the tenant's settings as they are now. */
export async function widgetConfig(tenantId: string, origin: string | undefined) {
  const tenant = await freshTenant(tenantId, origin);
  const { online, nextOpenAt, replyTime } = availability(tenant.config ?? {}, clock.date());
  return {
    name: tenant.name,
    greeting: tenantSettings(tenant.config ?? {}).greeting,
    theme: widgetTheme(tenant.config ?? {}, tenant.name),
    liveUrl: config.liveUrl,
    online,
    nextOpenAt,
    replyTime,
  };
}
