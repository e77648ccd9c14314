import { ulid } from 'ulid';
import { Conflict, fieldError, NotFound } from '#shared/core/errors.ts';
import { logger } from '#shared/core/log.ts';
import { EVENT_ITEM_TYPE, eventsRepo } from '#shared/data/events.ts';
import { type ExportJob, exportsRepo } from '#shared/data/exports.ts';
import type { Actor } from '#shared/core/vocabulary.ts';
import { auditRepo } from '#shared/data/audit.ts';
import { clean, keys } from '#shared/data/keys.ts';
import { membersRepo } from '#shared/data/members.ts';
import { LINK_SECONDS, objectsRepo } from '#shared/data/objects.ts';
import { putNew, tenantItems } from '#shared/data/tenant-data.ts';
import { transact } from '#shared/data/tx.ts';
import { tenantsRepo, type Tenant } from '#shared/data/tenants.ts';
import { newWidgetKey } from '#shared/domain/tenants/widget-keys.ts';
import { clock, newId } from '#shared/core/clock.ts';

// A tenant's data as JSON lines, for a tenant that leaves (export) or moves (import into a fresh
// tenant). The first line says what the file is; every other line is one item as stored.

export const EXPORT_FORMAT = 'tenant-export/1';

// Binary attributes (the sentence vectors) as `{ "$base64": ... }`, as JSON has no bytes. Only an
// item's own attributes are read back as bytes: a client's JSON (a config) nested deeper stays as given.
const toJson = (_: string, v: unknown) =>
  v instanceof Uint8Array ? { $base64: Buffer.from(v).toString('base64') } : v;
const withBytes = (item: Record<string, unknown>) =>
  Object.fromEntries(
    Object.entries(item).map(([k, v]) => {
      const b = (v as { $base64?: unknown } | null)?.$base64;
      return [
        k,
        typeof b === 'string' && Object.keys(v as object).length === 1 ? new Uint8Array(Buffer.from(b, 'base64')) : v,
      ];
    }),
  );

export async function* exportTenant(tenantId: string): AsyncGenerator<string> {
  yield JSON.stringify({ format: EXPORT_FORMAT, tenantId, exportedAt: clock.iso() });
  for await (const item of tenantItems(tenantId)) yield JSON.stringify(item, toJson);
}

/** How often a running export writes its progress (items read) to its job. */
const PROGRESS_EVERY = 500;

/**
 * Starts an export job (POST /tenant/export): the job item and its audit entry in one transaction,
 * then the job's message to the export function. A message the queue refuses fails the job at once.
 */
export async function startExport(tenantId: string, actor: Actor) {
  const id = `exp_${ulid(clock.now())}`;
  const now = clock.iso();
  const job: ExportJob = {
    id,
    tenantId,
    status: 'queued',
    items: 0,
    requestedAt: now,
    startedAt: null,
    finishedAt: null,
    objectKey: null,
  };
  await transact([
    exportsRepo.tx.create(job),
    auditRepo.tx.put(tenantId, {
      category: 'settings',
      action: 'tenant.exported',
      actor,
      target: { type: 'tenant', id: tenantId },
      changes: { export: { from: null, to: id } },
      createdAt: now,
    }),
  ]);
  try {
    await exportsRepo.enqueue({ tenantId, exportId: id });
  } catch (e) {
    await exportsRepo.update(tenantId, id, { status: 'failed', finishedAt: clock.iso() });
    throw e;
  }
  return exportView(job);
}

/**
 * Runs an export job (the export function): the same lines as `npm run export-tenant`, read
 * partition by partition with the count written to the job as it goes, stored as one object. A job
 * already done is not written twice (the queue delivers at least once).
 */
export async function runExport(tenantId: string, exportId: string) {
  const job = await exportsRepo.get(tenantId, exportId);
  if (!job || job.status === 'done' || job.status === 'failed') return;
  await exportsRepo.update(tenantId, exportId, { status: 'running', startedAt: clock.iso(), items: 0 });
  const lines: string[] = [];
  for await (const line of exportTenant(tenantId)) {
    lines.push(line);
    if ((lines.length - 1) % PROGRESS_EVERY === 0 && lines.length > 1)
      await exportsRepo.update(tenantId, exportId, { items: lines.length - 1 });
  }
  const key = keys.tenantExportObject(tenantId, exportId);
  await objectsRepo.put(key, Buffer.from(`${lines.join('\n')}\n`), 'application/x-ndjson');
  await exportsRepo.update(tenantId, exportId, {
    status: 'done',
    items: lines.length - 1,
    objectKey: key,
    finishedAt: clock.iso(),
  });
  logger.info('tenant exported', { tenantId, exportId, items: lines.length - 1 });
}

/** The job as the API shows it; a done job's link is signed now and lives LINK_SECONDS. */
async function exportView(job: ExportJob) {
  const link =
    job.status === 'done' && job.objectKey
      ? await objectsRepo.link(job.objectKey, `tenant-${job.tenantId}.jsonl`, false)
      : null;
  return {
    id: job.id,
    status: job.status,
    items: job.items,
    requestedAt: job.requestedAt,
    finishedAt: job.finishedAt,
    url: link,
    urlExpiresAt: link ? new Date(clock.now() + LINK_SECONDS * 1000).toISOString() : null,
  };
}

/** An export job of the caller's tenant (GET /tenant/export/{id}). */
export async function exportStatus(tenantId: string, exportId: string) {
  const job = await exportsRepo.get(tenantId, exportId);
  if (!job) throw new NotFound('export');
  return exportView(job);
}

/**
 * Not carried into another tenant: who may sign in (members, user links: the new owner invites the
 * team again), the widget key (a new one is made), integrations and their deliveries (their
 * credentials are sealed to the tenant they were made in: create them again), the inbound address
 * (a slug is unique: the new tenant gets its own), the outbox (its
 * events would be sent again), export jobs (their files are the old tenant's), and what expires within minutes.
 */
const LEFT_BEHIND = new Set([
  'tenant',
  'member',
  'memberEmail',
  'user',
  'widgetKey',
  'slug',
  'integration',
  'delivery',
  'export',
  'liveConnection',
  'liveConnectionLookup',
  'liveTicket',
  EVENT_ITEM_TYPE,
]);
const leftBehind = (i: Record<string, unknown>) =>
  LEFT_BEHIND.has(i.type as string) || (i.sk as string).startsWith('RATE#') || (i.pk as string).includes('#LIVE#');

/**
 * Imports an export into a fresh tenant owned by `owner` (who must belong to no tenant): every item
 * under the new tenant's id, written only where nothing is. Returns the tenant and its widget key.
 */
export async function importTenant(
  lines: Iterable<string> | AsyncIterable<string>,
  owner: { sub: string; email: string | null },
) {
  if (await membersRepo.membershipOf(owner.sub))
    throw new Conflict('the owner already belongs to a tenant', 'ALREADY_ONBOARDED');
  let from: string | null = null;
  const tenantId = newId();
  const items: Record<string, unknown>[] = [];
  for await (const line of lines) {
    if (!line.trim()) continue;
    const parsed = JSON.parse(line) as Record<string, unknown>;
    if (from === null) {
      if (parsed.format !== EXPORT_FORMAT) throw fieldError('file', `is not a tenant export (${EXPORT_FORMAT})`);
      from = parsed.tenantId as string;
      continue;
    }
    // Tenant ids are UUIDs: the old one appears only where the tenant is named (keys, tenantId fields).
    items.push(withBytes(JSON.parse(line.replaceAll(from, tenantId)) as Record<string, unknown>));
  }
  const old = items.find((i) => i.type === 'tenant');
  if (!old) throw fieldError('file', 'has no tenant item');
  const now = clock.iso();
  const wk = newWidgetKey();
  // The inbound email address (slug) stays the old tenant's until it is purged: the new one gets its own.
  const { slug: _slug, ...kept } = clean<Tenant>(old);
  const tenant: Tenant = {
    ...kept,
    id: tenantId,
    updatedAt: now,
    ownerCount: 1,
    memberCount: 1,
    integrationCount: 0,
    widgetKeyHash: wk.hash,
    widgetKeyPreview: wk.preview,
    widgetKeyCreatedAt: now,
  };
  await tenantsRepo.create({ tenant, owner, intents: [] });
  let written = 0;
  for (const item of items) {
    if (leftBehind(item)) continue;
    await putNew(item);
    written++;
  }
  // The indexer's pass started by the creation may have seen part of the content: one more, over all of it.
  await transact([eventsRepo.tx.contentChanged(tenantId, 'import')]);
  return { tenant: { id: tenantId, name: tenant.name }, widgetKey: wk.key, items: written };
}
