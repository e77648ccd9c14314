import { ulid } from 'ulid';
import type { Actor, AuditCategory } from '#shared/core/vocabulary.ts';
import type { TxItem } from './tx.ts';
import { keys } from './keys.ts';

// Builders of transaction items that many writes share: audit entries and counters.

export interface AuditEntry {
  id: string; category: AuditCategory; action: string; actor: Actor;
  target: { type: string; id: string }; changes: Record<string, { from: unknown; to: unknown }>; createdAt: string;
}

/** The Put of one audit entry, to go in the same transaction as the change it records. */
export function auditPut(tenantId: string, e: Omit<AuditEntry, 'id' | 'createdAt'> & { createdAt?: string }): TxItem {
  const createdAt = e.createdAt ?? new Date().toISOString();
  const id = `aud_${ulid(Date.parse(createdAt))}`;
  return {
    Put: {
      Item: {
        ...keys.audit(tenantId, id, e.target), type: 'audit', ...e, id, createdAt,
        ...keys.auditIndex(tenantId), gsi1sk: id,
        ...keys.auditByCategoryIndex(tenantId, e.category), gsi2sk: id,
      },
      ConditionExpression: 'attribute_not_exists(pk)',
    },
  };
}

/**
 * Per-day stats are split over shards so that concurrent messages of a busy tenant do not all
 * queue on one item. Every /stats read takes days x shards items, so the count is kept small: a
 * busy tenant's read must cost what a quiet tenant's does (`npm run bench` compares the two).
 */
export const STATS_SHARDS = 2;
const shardOf = (seed: string) => {
  let h = 0;
  for (let i = 0; i < seed.length; i++) h = (h * 31 + seed.charCodeAt(i)) | 0;
  return Math.abs(h) % STATS_SHARDS;
};

/**
 * Counter names are fixed words, `i_<intent name>` (names match ^[a-z][a-z0-9_]*$) or `a_<article id>`.
 * `labels` are strings kept beside the counters (`t_<article id>`: the article's title when it
 * answered), so that /stats names what it counts without reading the articles.
 */
export function statsAdd(tenantId: string, day: string, seed: string, add: Record<string, number>, labels: Record<string, string> = {}): TxItem {
  const key = keys.statsDay(tenantId, day);
  const entries = Object.entries(add).filter(([, v]) => v !== 0);
  const sets = Object.entries(labels);
  return {
    Update: {
      Key: { pk: key.pk, sk: `${key.sk}#${shardOf(seed)}` },
      UpdateExpression: `SET #day = :day${sets.map((_, i) => `, #l${i} = :l${i}`).join('')}`
        + `${entries.length ? ` ADD ${entries.map((_, i) => `#c${i} :v${i}`).join(', ')}` : ''}`,
      ExpressionAttributeNames: {
        '#day': 'day', ...Object.fromEntries(entries.map(([k], i) => [`#c${i}`, k])), ...Object.fromEntries(sets.map(([k], i) => [`#l${i}`, k])),
      },
      ExpressionAttributeValues: {
        ':day': day, ...Object.fromEntries(entries.map(([, v], i) => [`:v${i}`, v])), ...Object.fromEntries(sets.map(([, v], i) => [`:l${i}`, v])),
      },
    },
  };
}

/** Tenant-wide counters that are "now" rather than per day (open tickets). */
export function countersAdd(tenantId: string, add: { openTickets: number }): TxItem {
  return {
    Update: {
      Key: keys.counters(tenantId),
      UpdateExpression: 'ADD openTickets :n',
      ExpressionAttributeValues: { ':n': add.openTickets },
    },
  };
}

/** Intent hit counters, sharded like the stats; GET /intents sums the shards. */
export function intentHitAdd(tenantId: string, intentId: string, seed: string): TxItem {
  const key = keys.intentHits(tenantId);
  return {
    Update: {
      Key: { pk: key.pk, sk: `${key.sk}#${shardOf(seed)}` },
      UpdateExpression: 'ADD #h :one',
      ExpressionAttributeNames: { '#h': `h_${intentId}` },
      ExpressionAttributeValues: { ':one': 1 },
    },
  };
}

/** Article hit counters, sharded like the intents'; the article reads sum the shards. */
export function articleHitAdd(tenantId: string, articleId: string, seed: string): TxItem {
  const key = keys.articleHits(tenantId);
  return {
    Update: {
      Key: { pk: key.pk, sk: `${key.sk}#${shardOf(seed)}` },
      UpdateExpression: 'ADD #h :one',
      ExpressionAttributeNames: { '#h': `h_${articleId}` },
      ExpressionAttributeValues: { ':one': 1 },
    },
  };
}

/** Drops a deleted article's counters from every shard, so that they do not pile up. */
export function articleHitsRemove(tenantId: string, articleId: string): TxItem[] {
  const key = keys.articleHits(tenantId);
  return Array.from({ length: STATS_SHARDS }, (_, shard) => ({
    Update: { Key: { pk: key.pk, sk: `${key.sk}#${shard}` }, UpdateExpression: 'REMOVE #h', ExpressionAttributeNames: { '#h': `h_${articleId}` } },
  }));
}

export const utcDay = (iso: string) => iso.slice(0, 10);

/** Strips the table's key and index attributes from an item before it leaves the data layer. */
export function clean<T>(item: Record<string, unknown>): T {
  const { pk, sk, gsi1pk, gsi1sk, gsi2pk, gsi2sk, gsi3pk, gsi3sk, type, ...rest } = item;
  return rest as T;
}
