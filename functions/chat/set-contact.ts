import { chatRoute } from '#shared/edge/kit.ts';
import * as api from '#shared/edge/routes/chat.ts';
import { setContact } from '#shared/domain/customers/customers.ts';

export const handler = chatRoute(api.setContact, async ({ tenantId, origin, params, body }) =>
  setContact(tenantId, params.id, body.email, origin),
);
