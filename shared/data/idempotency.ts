import { DeleteCommand, PutCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { ConditionalCheckFailedException } from '@aws-sdk/client-dynamodb';
import { createHash } from 'node:crypto';
import { Conflict, IdempotencyInProgress, IdempotencyKeyReused } from '#shared/core/errors.ts';
import { db, tableName } from './client.ts';
import { keys } from './keys.ts';
import { TTL_ATTRIBUTE } from './table.ts';
import { withFence, type TxItem } from './tx.ts';
import { clock, newId } from '#shared/core/clock.ts';

export interface IdempotencyScope {
  tenantId: string;
  route: string;
  key: string;
}
/** A response as the HTTP edge sends it; only 2xx ones are kept. */
export interface StoredReply {
  status: number;
  body?: unknown;
  headers?: Record<string, string>;
}

const DAY_S = 24 * 3600;
/** A first request that died mid-way releases its key after this long (over the 10 s function timeout). */
const LOCK_S = 15;

const hash = (body: unknown) =>
  createHash('sha256')
    .update(JSON.stringify(body ?? null))
    .digest('base64url');
const nowS = () => clock.seconds();

export const idempotency = {
  /**
   * Runs `work` once per (tenant, route, key) within 24 hours: a replay with the same body gets the
   * stored response and writes nothing; another body is 422; a first request still running is 409.
   * Only 2xx replies are kept; a failed attempt releases the key so it can be retried.
   * Fenced: the first transaction of `work` also checks that this attempt still owns the key and marks
   * it applied, so an attempt that outlived its lock (a Lambda timeout, a stalled database) cannot
   * commit beside the one that took over, and one whose writes committed before it died is never
   * run again: its retry gets 409 CONFLICT (done, answer lost) instead of a second copy.
   */
  async run(
    scope: IdempotencyScope,
    body: unknown,
    work: () => Promise<StoredReply>,
    /** The conversation an answer belongs to, if any: the stored answer is indexed under it, so erasing its customer erases it. */
    conversationOf?: (reply: StoredReply) => string | undefined,
  ): Promise<StoredReply> {
    const Key = keys.idempotency(scope.tenantId, scope.route, scope.key);
    const bodyHash = hash(body);
    const now = nowS();
    const attempt = newId();
    try {
      await db.send(
        new PutCommand({
          TableName: tableName(),
          Item: {
            ...Key,
            status: 'in_progress',
            bodyHash,
            attempt,
            lockUntil: now + LOCK_S,
            [TTL_ATTRIBUTE]: now + DAY_S,
          },
          // Free, expired (TTL deletion lags), or a lock abandoned by a crashed first attempt that wrote nothing.
          ConditionExpression:
            'attribute_not_exists(pk) OR #ttl < :now OR (#s = :inp AND lockUntil < :now AND attribute_not_exists(applied))',
          ExpressionAttributeNames: { '#ttl': TTL_ATTRIBUTE, '#s': 'status' },
          ExpressionAttributeValues: { ':now': now, ':inp': 'in_progress' },
          ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
        }),
      );
    } catch (e) {
      if (!(e instanceof ConditionalCheckFailedException)) throw e;
      const old = e.Item as Record<string, { S?: string; N?: string }> | undefined;
      // Unless it is our own put, applied by a try that timed out and that the SDK sent again (a stalled database).
      if (old?.attempt?.S !== attempt) {
        if (old?.bodyHash?.S !== bodyHash) throw new IdempotencyKeyReused();
        if (old.status?.S === 'done' && old.reply?.S) return JSON.parse(old.reply.S) as StoredReply;
        const lockLeft = Number(old.lockUntil?.N ?? 0) - now;
        if (old.applied && lockLeft < 0) {
          throw new Conflict(
            'the request with this Idempotency-Key was carried out, but its answer was lost; read the result instead of sending it again',
          );
        }
        throw new IdempotencyInProgress(Math.max(1, lockLeft + 1));
      }
    }
    const fence: TxItem = {
      Update: {
        Key,
        UpdateExpression: 'SET applied = :t',
        ConditionExpression: 'attempt = :me',
        ExpressionAttributeValues: { ':t': true, ':me': attempt },
      },
    };
    // Released only if this attempt still owns the key and none of its writes committed.
    const release = () =>
      db
        .send(
          new DeleteCommand({
            TableName: tableName(),
            Key,
            ConditionExpression: 'attempt = :me AND attribute_not_exists(applied)',
            ExpressionAttributeValues: { ':me': attempt },
          }),
        )
        .catch(() => undefined);
    let reply: StoredReply;
    try {
      reply = await withFence(fence, work);
    } catch (err) {
      await release();
      throw err;
    }
    if (reply.status >= 200 && reply.status < 300) {
      // The work is done: a failure to keep its answer (a stalled database) must not turn it into an
      // error; a retry then finds the key applied and is told so (409 CONFLICT) rather than run again.
      const conversationId = conversationOf?.(reply);
      const owner = conversationId
        ? { ...keys.conversationRepliesIndex(scope.tenantId, conversationId), gsi1sk: Key.pk }
        : undefined;
      await db
        .send(
          new UpdateCommand({
            TableName: tableName(),
            Key,
            UpdateExpression: `SET #s = :done, reply = :reply${owner ? ', gsi1pk = :opk, gsi1sk = :osk' : ''} REMOVE lockUntil`,
            ExpressionAttributeNames: { '#s': 'status' },
            ExpressionAttributeValues: {
              ':done': 'done',
              ':reply': JSON.stringify(reply),
              ...(owner ? { ':opk': owner.gsi1pk, ':osk': owner.gsi1sk } : {}),
            },
          }),
        )
        .catch(() => undefined);
    } else {
      await release();
    }
    return reply;
  },
};
