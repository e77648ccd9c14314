import { adminRoute } from '#shared/http/kit.ts';
import { ok } from '#shared/http/response.ts';
import { PutSettingsBody } from '#shared/http/schemas/settings.ts';
import { putSettings } from '#shared/domain/settings.ts';

export const handler = adminRoute({ body: PutSettingsBody }, async ({ membership, body }) => ok(await putSettings(membership, body)));
