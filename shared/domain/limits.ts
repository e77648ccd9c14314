import { RateLimited } from '#shared/core/errors.ts';
import { fixedWindow, limitsRepo } from '#shared/data/limits.ts';
import { TxConditionFailed, type TxItem } from '#shared/data/tx.ts';

// The limits of CONTRACT section 6 that keep one tenant, one key or one address from taking more
// than its share: caps on what a tenant keeps, and per-minute windows on what the public widget
// key lets anyone start.

export const LIMITS = {
  userMessagesPerConversation: 1000,
  messagesPerMinute: 30,
  integrationsPerTenant: 25,
  /** Members and pending invitations together. */
  membersPerTenant: 500,
  /** Per widget key (tenant) and source address; settings `widget.newConversationsPerMinute` (1 to 10,000) replaces it. */
  newConversationsPerAddress: 60,
  newConversationsPerKey: 1000,
  escalationsPerAddress: 30,
  ratingsPerConversation: 5,
  customerSocketsPerConversation: 5,
  socketsPerMember: 20,
} as const;

const MINUTE = 60;

/** A one-minute window counted in a write's transaction, and the 429 it answers once full. */
export interface Counter {
  item: TxItem;
  refusal: RateLimited;
}

export function perMinute(tenantId: string, name: string, limit: number, now: Date, what: string): Counter {
  return {
    item: limitsRepo.tx.countInWindow(tenantId, name, now, MINUTE, limit),
    refusal: new RateLimited(`at most ${limit} ${what} a minute`, fixedWindow(now, MINUTE).retryAfter),
  };
}

/** Rethrows a transaction's failure as the 429 of the first full counter among `items`, if one failed. */
export function asRateLimited(e: unknown, items: TxItem[], counters: Counter[]): unknown {
  if (!(e instanceof TxConditionFailed)) return e;
  const full = counters.find((c) => e.failed[items.indexOf(c.item)]);
  return full ? full.refusal : e;
}
