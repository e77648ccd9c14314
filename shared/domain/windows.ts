import { RateLimited } from '#shared/core/errors.ts';
import { fixedWindow, limitsRepo } from '#shared/data/limits.ts';
import { TxConditionFailed, type TxItem } from '#shared/data/tx.ts';

// The per-minute windows of the abuse limits (their caps in limits.ts), counted in a write's transaction.

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
