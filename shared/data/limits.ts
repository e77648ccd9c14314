import { keys } from './keys.ts';
import { TTL_ATTRIBUTE } from './table.ts';
import type { TxItem } from './tx.ts';

// Counters behind the limits of CONTRACT section 6. Each goes into the transaction of the write it
// limits, so a refused request writes nothing and a counted one is never lost:
// - windows: a fixed window (one item per name and window, expiring after it) whose ADD fails past
//   the limit;
// - tallies: an attribute of the tenant item (members and invitations, integrations) moved by the
//   writes that add or remove one, its increment conditional on staying within the cap.

/** The window a moment falls in, as a sortable string, and the seconds until it ends. */
export function fixedWindow(now: Date, seconds: number) {
  const start = Math.floor(now.getTime() / 1000 / seconds) * seconds;
  return {
    id: new Date(start * 1000).toISOString(),
    start,
    retryAfter: Math.max(1, start + seconds - Math.ceil(now.getTime() / 1000)),
  };
}

/** Counts one in `name`'s current window; the transaction fails here once `limit` were counted. */
function countInWindow(tenantId: string, name: string, now: Date, seconds: number, limit: number): TxItem {
  const w = fixedWindow(now, seconds);
  return {
    Update: {
      Key: keys.limitWindow(tenantId, name, w.id),
      UpdateExpression: 'ADD n :one SET #ttl = :ttl',
      ConditionExpression: 'attribute_not_exists(n) OR n < :limit',
      ExpressionAttributeNames: { '#ttl': TTL_ATTRIBUTE },
      ExpressionAttributeValues: { ':one': 1, ':limit': limit, ':ttl': w.start + 2 * seconds },
    },
  };
}

/** Moves a tally of the tenant item by `delta`; an increment fails once the tally is at `max`. */
function tally(
  tenantId: string,
  attribute: 'memberCount' | 'integrationCount' | 'savedReplyCount',
  delta: number,
  max?: number,
): TxItem {
  const capped = delta > 0 && max !== undefined;
  return {
    Update: {
      Key: keys.tenant(tenantId),
      UpdateExpression: 'ADD #c :d',
      ConditionExpression: capped
        ? 'attribute_exists(pk) AND (attribute_not_exists(#c) OR #c <= :room)'
        : 'attribute_exists(pk)',
      ExpressionAttributeNames: { '#c': attribute },
      ExpressionAttributeValues: { ':d': delta, ...(capped ? { ':room': max - delta } : {}) },
    },
  };
}

export const limitsRepo = { tx: { countInWindow, tally } };
