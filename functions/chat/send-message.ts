import { chatRoute } from '#shared/http/kit.ts';
import { ok } from '#shared/http/response.ts';
import { SendMessageBody } from '#shared/http/schemas/chat.ts';
import { sendMessage } from '#shared/domain/chat.ts';

export const handler = chatRoute(
  { body: SendMessageBody, idempotent: true },
  async ({ tenant, body }) => ok(await sendMessage(tenant.tenantId, body)),
);
