import { adminRoute } from '#shared/http/kit.ts';
import { created } from '#shared/http/response.ts';
import { rotateWidgetKey } from '#shared/domain/settings.ts';

export const handler = adminRoute({}, async ({ membership }) => created(await rotateWidgetKey(membership)));
