import { chatRoute } from '#shared/http/kit.ts';
import { ok } from '#shared/http/response.ts';
import { EscalateBody } from '#shared/http/schemas/chat.ts';
import { escalate } from '#shared/domain/chat.ts';

export const handler = chatRoute(
  { body: EscalateBody, idempotent: true },
  async ({ tenant, body }) => ok(await escalate(tenant.tenantId, body)),
);
