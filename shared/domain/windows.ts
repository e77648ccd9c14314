import { RateLimited } from '#shared/core/errors.ts';
import { fixedWindow, limitsRepo } from '#shared/data/limits.ts';
import { TxConditionFailed, type TxItem } from '#shared/data/tx.ts';

// The per-minute windows of the abuse limits (their caps in limits.ts), counted in a write's transaction.

const MINUTE = 60;

/** A one-minute window counted in a write's transaction, and the 429 it answers once full. */
export interface Counter {
  item: TxItem;
  /** The 429, made only when it is answered: an error's stack costs tens of microseconds, on every message. */
  refusal: () => RateLimited;
  /** The window itself (whose, which name, at which limit, which minute) and when it ends, epoch ms. */
  window: string;
  endsAt: number;
}

/**
 * `item` counts in the minute of `now` of the window `name` (tenant-qualified) up to `limit`; once
 * full, it is refused with `detail`. The limit is part of the window's identity: a tenant that
 * raises its figure opens a window seen full at the old one.
 */
export function minuteCounter(item: TxItem, name: string, limit: number, now: Date, detail: string): Counter {
  const w = fixedWindow(now, MINUTE);
  return {
    item,
    refusal: () => new RateLimited(detail, w.retryAfter),
    window: `${name}#${limit}#${w.id}`,
    endsAt: (w.start + MINUTE) * 1000,
  };
}

export function perMinute(tenantId: string, name: string, limit: number, now: Date, what: string): Counter {
  const item = limitsRepo.tx.countInWindow(tenantId, name, now, MINUTE, limit);
  return minuteCounter(item, `${tenantId}#${name}`, limit, now, `at most ${limit} ${what} a minute`);
}

// The windows this container has seen full, until they end. A sender who goes on past a full
// window is refused before anything is read or decided (a chat message's decision is most of its
// CPU), with no database call. A fixed window never empties before its end, so no refusal is wrong.
const seenFull = new Map<string, number>();
const SEEN_MAX = 10_000;

/** Rethrows a transaction's failure as the 429 of the first full counter among `items`, if one failed. */
export function asRateLimited(e: unknown, items: TxItem[], counters: Counter[]): unknown {
  if (!(e instanceof TxConditionFailed)) return e;
  const full = counters.find((c) => e.failed[items.indexOf(c.item)]);
  if (!full) return e;
  if (seenFull.size >= SEEN_MAX) seenFull.delete(seenFull.keys().next().value as string);
  seenFull.set(full.window, full.endsAt);
  return full.refusal();
}

/** Throws the 429 of the first of `counters` whose window this container has seen full, if it has not ended. */
export function refuseSeenFull(counters: Counter[], now: Date): void {
  for (const c of counters) {
    const until = seenFull.get(c.window);
    if (until === undefined) continue;
    if (now.getTime() < until) throw c.refusal();
    seenFull.delete(c.window);
  }
}
