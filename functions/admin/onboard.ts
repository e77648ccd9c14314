import { z } from 'zod';
import { userRoute } from '#shared/http/kit.ts';
import { created } from '#shared/http/response.ts';
import { text } from '#shared/http/schema.ts';
import { onboard } from '#shared/domain/tenants.ts';

export const OnboardBody = z.strictObject({ tenantName: text(1, 100) });

export const handler = userRoute(
  { body: OnboardBody },
  async ({ user, body }) => created(await onboard(user, body.tenantName)),
);
