import { fieldError, NotFound } from '#shared/core/errors.ts';
import { logger } from '#shared/core/log.ts';
import type { Actor } from '#shared/core/vocabulary.ts';
import { integrationsRepo } from '#shared/data/integrations.ts';
import { keys } from '#shared/data/keys.ts';
import { membersRepo } from '#shared/data/members.ts';
import { objectsRepo } from '#shared/data/objects.ts';
import { tenantDeletionRepo, tenantItems } from '#shared/data/tenant-data.ts';
import { tenantsRepo } from '#shared/data/tenants.ts';
import { retrying } from '#shared/data/tx.ts';
import { events } from '#shared/domain/events.ts';
import { clock } from '#shared/core/clock.ts';

// A tenant that leaves: the owner confirms with the tenant's name; the widget key, integrations and
// members are cut at once, and the purge job removes the rest in the background. The job walks the
// tenant's partitions (shared/data/tenant-data.ts) and deletes what it finds, so a run that stops
// anywhere is simply run again: idempotent and resumable, its progress counted on the purge item.

const PAGE = 100;

/** The mail bucket's keys an item names: an email message's original and its attachments. */
const storedObjects = (item: Record<string, unknown>): string[] => [
  ...(typeof (item.email as { rawKey?: unknown } | undefined)?.rawKey === 'string'
    ? [(item.email as { rawKey: string }).rawKey]
    : []),
  ...(Array.isArray(item.attachments)
    ? (item.attachments as Array<{ key?: unknown }>).flatMap((a) => (typeof a.key === 'string' ? [a.key] : []))
    : []),
];

export async function requestDeletion(tenantId: string, actor: Actor, name: string) {
  return retrying(
    async () => {
      const t = await tenantsRepo.get(tenantId, true);
      if (!t) throw new NotFound('tenant');
      if (name !== t.name) throw fieldError('name', "must be the tenant's name exactly as it is shown");
      const now = clock.iso();
      const [members, integrations] = await Promise.all([membersRepo.list(tenantId), integrationsRepo.list(tenantId)]);
      if (!t.deletingSince) {
        await tenantDeletionRepo.start(
          t,
          members.flatMap((m) => (m.userId ? [m.userId] : [])),
          integrations.map((i) => i.id),
          now,
          {
            action: 'tenant.deletion_requested',
            actor,
            target: { type: 'tenant', id: tenantId },
            changes: { deletingSince: { from: null, to: now } },
          },
          [events.widgetKeyRotated(tenantId, now)],
        );
      }
      return { tenantId, status: 'deleting' as const, requestedAt: t.deletingSince ?? now };
    },
    { attempts: 3, conflict: 'the tenant changed concurrently; try again' },
  );
}

/** The deletion the caller requested, as its purge goes: readable once they are unlinked. */
export async function deletionStatus(sub: string) {
  const s = await tenantDeletionRepo.status(sub);
  if (!s) throw new NotFound('tenant deletion');
  return s;
}

/**
 * One purge run over every tenant being deleted; returns what it removed. `goOn` says whether there
 * is time for another page (of `page` items): a run that stops leaves the rest to the next one.
 */
export async function runPurge(
  goOn: () => boolean = () => true,
  page = PAGE,
): Promise<{ tenants: number; deleted: number; finished: number }> {
  const pending = await tenantDeletionRepo.pending();
  let deleted = 0;
  let finished = 0;
  for (const p of pending) {
    if (!goOn()) break;
    let batch: Array<{ pk: string; sk: string }> = [];
    // The mail bucket's objects a message names (its stored original or own copy, its attachments):
    // removed before the message, so that a run that dies in between still finds them next time.
    let objects: string[] = [];
    let stopped = false;
    let slug: string | null = null;
    for await (const item of tenantItems(p.tenantId, { integrationIds: p.integrationIds })) {
      // The tenant item goes last, with the purge item: until then the tenant stays marked.
      if (item.pk === keys.tenant(p.tenantId).pk && item.sk === keys.tenant(p.tenantId).sk) {
        slug = (item.slug as string | undefined) ?? null;
        continue;
      }
      // The slug's lookup is never deleted: it becomes the slug's tombstone at the end.
      if (item.type === 'slug') continue;
      batch.push({ pk: item.pk as string, sk: item.sk as string });
      objects.push(...storedObjects(item));
      if (batch.length >= page) {
        await objectsRepo.remove(objects);
        objects = [];
        await tenantDeletionRepo.remove(p, batch);
        deleted += batch.length;
        batch = [];
        if (!goOn()) {
          stopped = true;
          break;
        }
      }
    }
    if (stopped) {
      logger.info('tenant purge paused', { tenantId: p.tenantId });
      break;
    }
    await objectsRepo.remove(objects);
    await tenantDeletionRepo.remove(p, batch);
    deleted += batch.length;
    await tenantDeletionRepo.finish(p, slug);
    finished++;
    logger.info('tenant purged', { tenantId: p.tenantId, deleted: p.deleted + deleted });
  }
  return { tenants: pending.length, deleted, finished };
}
