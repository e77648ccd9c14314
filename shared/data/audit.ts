import { ulid } from 'ulid';
import type { Actor, AuditCategory } from '#shared/core/vocabulary.ts';
import { clean, keys, type Key } from './keys.ts';
import { batchGet, queryAll, queryPage, type Page } from './lists.ts';
import { db, tableName } from './client.ts';
import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import type { TxItem } from './tx.ts';
import { clock } from '#shared/core/clock.ts';

// Audit entries: newest first on gsi1 (sk = aud_<ulid>), by category on gsi2. A ticket's entries are
// stored in the ticket's partition (see keys.audit). Each is written in the same transaction as the
// change it records.

export interface AuditEntry {
  id: string;
  category: AuditCategory;
  action: string;
  actor: Actor;
  target: { type: string; id: string };
  changes: Record<string, { from: unknown; to: unknown }>;
  createdAt: string;
}
/** What a repository's write is given to record; it adds the category and the time. */
export type AuditInput = Omit<AuditEntry, 'id' | 'createdAt' | 'category'>;

export const asAudit = (i: Record<string, unknown>): AuditEntry => {
  const { id, category, action, actor, target, changes, createdAt } = clean<AuditEntry>(i);
  return { id, category, action, actor, target, changes, createdAt };
};

// What an audit target is called now, by its type: the key of its item and the name read from it.
const TARGETS: Record<
  string,
  { key: (tenantId: string, id: string) => { pk: string; sk: string }; name: (i: Record<string, unknown>) => unknown }
> = {
  ticket: { key: keys.ticket, name: (i) => (typeof i.number === 'number' ? `#${i.number}` : null) },
  intent: { key: keys.intent, name: (i) => i.name },
  article: { key: keys.article, name: (i) => i.title },
  integration: { key: keys.integration, name: (i) => i.name },
  saved_reply: { key: keys.savedReply, name: (i) => i.title },
  member: { key: keys.member, name: (i) => i.displayName ?? i.email },
  tenant: { key: (tenantId) => keys.tenant(tenantId), name: (i) => i.name },
};

export const auditRepo = {
  /**
   * The current names of these targets (a ticket's `#number`, an intent's name, an article's title...),
   * by `type:id`, gone ones left out; and the items at `also` (what the caller needs besides), by
   * `pk|sk`: one BatchGet for both, read strongly (a member renamed is named the new way at once).
   */
  async targetNames(
    tenantId: string,
    targets: { type: string; id: string }[],
    also: Key[] = [],
  ): Promise<{ names: Map<string, string>; items: Map<string, Record<string, unknown>> }> {
    const wanted = new Map<string, { type: string; id: string }>();
    for (const t of targets) if (TARGETS[t.type]) wanted.set(`${t.type}:${t.id}`, t);
    const keyed = [...wanted.values()].map((t) => ({ t, key: TARGETS[t.type]!.key(tenantId, t.id) }));
    const unique = [...new Map([...keyed.map((k) => k.key), ...also].map((k) => [`${k.pk}|${k.sk}`, k])).values()];
    const items = new Map((await batchGet(unique, true)).map((i) => [`${i.pk as string}|${i.sk as string}`, i]));
    const names = new Map<string, string>();
    for (const { t, key } of keyed) {
      const item = items.get(`${key.pk}|${key.sk}`);
      const name = item ? TARGETS[t.type]!.name(item) : null;
      if (typeof name === 'string' && name) names.set(`${t.type}:${t.id}`, name);
    }
    return { names, items };
  },

  async list(
    tenantId: string,
    filters: { category?: AuditCategory },
    limit: number,
    cursor?: string,
  ): Promise<Page<AuditEntry>> {
    const q = filters.category
      ? {
          index: 'gsi2' as const,
          partition: { name: 'gsi2pk', value: keys.auditByCategoryIndex(tenantId, filters.category).gsi2pk },
        }
      : { index: 'gsi1' as const, partition: { name: 'gsi1pk', value: keys.auditIndex(tenantId).gsi1pk } };
    const page = await queryPage(q, { tenantId, list: 'audit', filters }, limit, cursor);
    return { items: page.items.map(asAudit), nextCursor: page.nextCursor };
  },

  /**
   * Replaces `field`'s values in the `changes` of one category's entries about `targetIds` with
   * `replacement` (an erased customer's words in what an example recorded); one Query of the category.
   */
  async redact(
    tenantId: string,
    category: AuditCategory,
    targetIds: Set<string>,
    field: string,
    replacement: string,
  ): Promise<number> {
    const items = await queryAll({
      index: 'gsi2',
      partition: { name: 'gsi2pk', value: keys.auditByCategoryIndex(tenantId, category).gsi2pk },
    });
    const hit = items.filter(
      (i) => targetIds.has((i.target as { id: string }).id) && (i.changes as Record<string, unknown>)?.[field],
    );
    await Promise.all(
      hit.map((i) => {
        const c = (i.changes as Record<string, { from: unknown; to: unknown }>)[field]!;
        return db.send(
          new UpdateCommand({
            TableName: tableName(),
            Key: { pk: i.pk, sk: i.sk },
            UpdateExpression: 'SET changes.#f = :v',
            ExpressionAttributeNames: { '#f': field },
            ExpressionAttributeValues: {
              ':v': { from: c.from === null ? null : replacement, to: c.to === null ? null : replacement },
            },
          }),
        );
      }),
    );
    return hit.length;
  },

  tx: {
    /** The Put of one audit entry. */
    put(tenantId: string, e: Omit<AuditEntry, 'id' | 'createdAt'> & { createdAt?: string }): TxItem {
      const createdAt = e.createdAt ?? clock.iso();
      const id = `aud_${ulid(Date.parse(createdAt))}`;
      return {
        Put: {
          Item: {
            ...keys.audit(tenantId, id, e.target),
            type: 'audit',
            ...e,
            id,
            createdAt,
            ...keys.auditIndex(tenantId),
            gsi1sk: id,
            ...keys.auditByCategoryIndex(tenantId, e.category),
            gsi2sk: id,
          },
          ConditionExpression: 'attribute_not_exists(pk)',
        },
      };
    },
  },
};
