import * as z from 'zod/mini';
import { declareAdmin } from '../route.ts';
import { Timestamp } from './common.ts';

// A tenant that leaves.

export const DeleteTenantBody = z.strictObject({
  name: z.string().check(z.describe('the tenant\'s name, typed to confirm')),
});
export const TenantDeletion = z.object({
  tenantId: z.uuid(), status: z.literal('deleting'), requestedAt: Timestamp,
});

export const deleteTenant = declareAdmin('POST', '/tenant/deletion', 'delete-tenant', 'owner', {
  table: 'write', body: DeleteTenantBody, response: TenantDeletion, status: 202, summary: 'Delete the tenant',
  description: 'The owner types the tenant\'s name to confirm (400 otherwise). At once: the widget key stops (chat and live '
    + 'requests are refused, open customer sockets close), integrations are removed (no more webhooks or Slack messages), '
    + 'and every member is unlinked (their tokens name no tenant). The rest is removed in the background by the purge job '
    + '(hourly; resumable and idempotent). Audited (`settings`, `tenant.deletion_requested`).',
});

export const routes = [deleteTenant];
