import * as z from 'zod/mini';
import { declareAdmin } from '../route.ts';
import { Timestamp } from './common.ts';

// A tenant that leaves.

export const DeleteTenantBody = z.strictObject({
  name: z.string().check(z.describe("the tenant's name, typed to confirm")),
});
export const TenantDeletion = z.object({
  tenantId: z.uuid(),
  status: z.literal('deleting'),
  requestedAt: Timestamp,
});

export const deleteTenant = declareAdmin('POST', '/tenant/deletion', 'delete-tenant', 'owner', {
  table: 'write',
  body: DeleteTenantBody,
  response: TenantDeletion,
  status: 202,
  summary: 'Delete the tenant',
  description:
    "The owner types the tenant's name to confirm (400 otherwise). At once: the widget key stops (chat and live " +
    'requests are refused, open customer sockets close), integrations are removed (no more webhooks or Slack messages), ' +
    'and every member is unlinked (their tokens name no tenant). The rest is removed in the background by the purge job ' +
    '(hourly; resumable and idempotent); its progress is `GET /admin/tenant/deletion`. Audited (`settings`, `tenant.deletion_requested`).',
});

export const TenantDeletionStatus = z.object({
  tenantId: z.uuid(),
  tenantName: z.string(),
  status: z.enum(['deleting', 'deleted']),
  requestedAt: Timestamp,
  deleted: z.number().check(z.describe('items the purge has removed so far')),
  finishedAt: z.nullable(Timestamp),
});

export const getTenantDeletion = declareAdmin('GET', '/tenant/deletion', 'get-tenant-deletion', null, {
  table: 'read',
  response: TenantDeletionStatus,
  status: 200,
  summary: 'The progress of the deletion you requested',
  description:
    'Any valid token: the owner who requested a deletion is unlinked at once, so this reads the deletion *they* ' +
    "requested (their latest), not their tenant's. `deleted` counts the items removed so far; `status` turns `deleted` when the " +
    'purge is done, and the answer stays readable for a day after (`finishedAt`), then 404 `NOT_FOUND`, as for a user who requested none.',
});

export const TenantExport = z.object({
  id: z.string().check(z.describe('this export (`exp_` + ULID), as its audit entry names it')),
  status: z
    .enum(['queued', 'running', 'done', 'failed'])
    .check(
      z.describe('`queued` until the export function takes it, `running` while it reads, then `done` (or `failed`)'),
    ),
  items: z
    .number()
    .check(
      z.describe('items read so far; when `done`, the items in the file (the first line, the header, not counted)'),
    ),
  requestedAt: Timestamp,
  finishedAt: z.nullable(Timestamp),
  url: z
    .nullable(z.string())
    .check(
      z.describe(
        'when `done`: a presigned GET of the JSON lines file, signed at this read; anyone holding it may download it until `urlExpiresAt`',
      ),
    ),
  urlExpiresAt: z.nullable(Timestamp),
});
export const ExportParams = z.strictObject({
  id: z.string().check(z.regex(/^exp_[0-9A-HJKMNP-TV-Z]{26}$/, 'must be an export id (exp_ + ULID)')),
});

export const exportTenant = declareAdmin('POST', '/tenant/export', 'export-tenant', 'owner', {
  table: 'write',
  exportQueue: true,
  response: TenantExport,
  status: 202,
  summary: 'Start an export of the whole tenant as JSON lines',
  description:
    "Starts a job (202, `status: queued`) that writes the tenant's data, the same JSON lines as `npm run export-tenant` " +
    '(the first line names the format and the tenant, every other line is one item as stored), to the objects bucket, however ' +
    'large the tenant. Poll `GET /admin/tenant/export/{id}` for its progress and, when `done`, a download link that lives 5 ' +
    'minutes (each read signs a new one); the job and the file are removed after a day. Audited when requested (`settings`, `tenant.exported`).',
});

export const getTenantExport = declareAdmin('GET', '/tenant/export/{id}', 'get-tenant-export', 'owner', {
  table: 'read',
  exportLinks: true,
  params: ExportParams,
  response: TenantExport,
  status: 200,
  summary: "An export's progress and its download link",
  description:
    "The export job started by `POST /admin/tenant/export`, of the caller's tenant (404 `NOT_FOUND` for another's, or after a day). " +
    '`items` counts what was read so far; when `status` is `done`, `url` is a presigned GET of the file, signed at this read, that lives until `urlExpiresAt`.',
});

export const routes = [deleteTenant, getTenantDeletion, exportTenant, getTenantExport];
