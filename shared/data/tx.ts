import { AsyncLocalStorage } from 'node:async_hooks';
import { TransactWriteCommand, type TransactWriteCommandInput } from '@aws-sdk/lib-dynamodb';
import { TransactionCanceledException } from '@aws-sdk/client-dynamodb';
import { Conflict, IdempotencyInProgress } from '#shared/core/errors.ts';
import { db, tableName } from './client.ts';

type FullItem = NonNullable<TransactWriteCommandInput['TransactItems']>[number];
type Op<K extends keyof FullItem> = Omit<NonNullable<FullItem[K]>, 'TableName'>;
/** A transaction item without its table name: the data modules build these and `transact` adds the table. */
export interface TxItem {
  Put?: Op<'Put'>;
  Update?: Op<'Update'>;
  Delete?: Op<'Delete'>;
  ConditionCheck?: Op<'ConditionCheck'>;
}

/** Concurrent transactions kept colliding on the same items; the caller may re-read and redo. */
export class TxConflict extends Error {
  constructor() {
    super('transaction kept conflicting with concurrent writes');
  }
}

/** A transaction whose condition checks failed; `failed[i]` is true where item i's condition failed. */
export class TxConditionFailed extends Error {
  constructor(readonly failed: boolean[]) {
    super('transaction condition failed');
  }
}

const EXPRESSIONS = ['UpdateExpression', 'ConditionExpression'] as const;
const PLACEHOLDER = /[:#][A-Za-z0-9_]+/g;

/**
 * The operation with only the attribute names and values its expressions use. DynamoDB refuses
 * the whole request for one it does not use, and builders that assemble an expression from
 * optional parts can then give every value they may need without tracking which part reads it.
 */
export function usedOnly<T extends Record<string, unknown>>(op: T): T {
  const used = new Set(
    EXPRESSIONS.flatMap((k) => (typeof op[k] === 'string' ? ((op[k] as string).match(PLACEHOLDER) ?? []) : [])),
  );
  const out: Record<string, unknown> = { ...op };
  for (const k of ['ExpressionAttributeNames', 'ExpressionAttributeValues'] as const) {
    if (!op[k]) continue;
    const kept = Object.entries(op[k] as Record<string, unknown>).filter(([p]) => used.has(p));
    if (kept.length) out[k] = Object.fromEntries(kept);
    else delete out[k];
  }
  return out as T;
}

const withTable = (item: TxItem): FullItem => {
  const [kind, op] = Object.entries(item)[0] as [string, Record<string, unknown>];
  return { [kind]: { TableName: tableName(), ...usedOnly(op) } } as FullItem;
};

/**
 * The Idempotency-Key's fence (idempotency.ts), carried by the first transaction that `work` makes
 * inside `withFence`: it commits only while the request still owns its key, and marks the key
 * applied. One transaction at a time carries it (parallel ones would collide on the key's item);
 * once one has committed, the key is the request's for good and later ones go without it.
 */
interface Fence {
  item: TxItem;
  state: 'free' | 'busy' | 'done';
}
const fences = new AsyncLocalStorage<Fence>();
export const withFence = <T>(item: TxItem, work: () => Promise<T>): Promise<T> =>
  fences.run({ item, state: 'free' }, work);
/** Items of one transaction that callers may use: DynamoDB takes 100, one is kept for the fence. */
export const MAX_TX_ITEMS = 99;

export const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/**
 * One TransactWriteItems. Conflicts with a concurrent transaction on the same item are retried
 * (the whole transaction is all-or-nothing, so a retry never doubles a write); a failed condition
 * throws TxConditionFailed so the caller can re-read and decide.
 */
export async function transact(items: TxItem[], attempts = 8): Promise<void> {
  const f = fences.getStore();
  const fence = f?.state === 'free' ? f : null;
  if (fence) fence.state = 'busy';
  const input = { TransactItems: (fence ? [...items, fence.item] : items).map(withTable) };
  try {
    for (let attempt = 1; ; attempt++) {
      try {
        await db.send(new TransactWriteCommand(input));
        if (fence) fence.state = 'done';
        return;
      } catch (e) {
        if (!(e instanceof TransactionCanceledException)) throw e;
        const codes = (e.CancellationReasons ?? []).map((r) => r.Code ?? 'None');
        // The fence failed: another request took the Idempotency-Key over (this one outlived its lock).
        if (fence && codes[items.length] === 'ConditionalCheckFailed') throw new IdempotencyInProgress(1);
        if (codes.includes('ConditionalCheckFailed'))
          throw new TxConditionFailed(codes.slice(0, items.length).map((c) => c === 'ConditionalCheckFailed'));
        if (!codes.some((c) => c === 'TransactionConflict')) throw e;
        if (attempt >= attempts) throw new TxConflict();
        await sleep(Math.random() * 20 * 2 ** Math.min(attempt, 5));
      }
    }
  } finally {
    if (fence?.state === 'busy') fence.state = 'free';
  }
}

/**
 * Optimistic concurrency in one place: `work` reads, decides and writes; when its transaction
 * failed because the items changed since the read (or kept colliding), it runs again on a fresh
 * read. A failure `work` can explain (a name taken, a rate limit) it throws as its own error.
 * After `attempts` runs the client gets a 409 to retry.
 */
export async function retrying<T>(
  work: () => Promise<T>,
  opts: { attempts: number; conflict: string; jitterMs?: number },
): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await work();
    } catch (e) {
      if (!(e instanceof TxConditionFailed || e instanceof TxConflict)) throw e;
      if (attempt >= opts.attempts) throw new Conflict(opts.conflict);
      if (opts.jitterMs) await sleep(Math.random() * opts.jitterMs * Math.min(attempt, 5));
    }
  }
}
