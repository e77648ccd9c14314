import { userRoute } from '#shared/http/kit.ts';
import { created } from '#shared/http/response.ts';
import { OnboardBody } from '#shared/http/schemas/auth.ts';
import { onboard } from '#shared/domain/tenants.ts';

export const handler = userRoute(
  { body: OnboardBody },
  async ({ user, body }) => created(await onboard(user, body.tenantName)),
);
