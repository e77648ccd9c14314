import { DeleteCommand, PutCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { ConditionalCheckFailedException } from '@aws-sdk/client-dynamodb';
import { createHash } from 'node:crypto';
import { Conflict, IdempotencyKeyReused } from '#shared/core/errors.ts';
import { db, tableName } from './client.ts';
import { keys } from './keys.ts';
import { TTL_ATTRIBUTE } from './table.ts';

export interface IdempotencyScope { tenantId: string; route: string; key: string }
/** A response as the HTTP edge sends it; only 2xx ones are kept. */
export interface StoredReply { status: number; body?: unknown; headers?: Record<string, string> }

const DAY_S = 24 * 3600;
/** A first request that died mid-way releases its key after this long. */
const LOCK_S = 30;

const hash = (body: unknown) => createHash('sha256').update(JSON.stringify(body ?? null)).digest('base64url');
const nowS = () => Math.floor(Date.now() / 1000);

export const idempotency = {
  /**
   * Runs `work` once per (tenant, route, key) within 24 hours: a replay with the same body gets the
   * stored response and writes nothing; another body is 422; a first request still running is 409.
   * Only 2xx replies are kept; a failed attempt releases the key so it can be retried.
   */
  async run(scope: IdempotencyScope, body: unknown, work: () => Promise<StoredReply>): Promise<StoredReply> {
    const Key = keys.idempotency(scope.tenantId, scope.route, scope.key);
    const bodyHash = hash(body);
    const now = nowS();
    try {
      await db.send(new PutCommand({
        TableName: tableName(),
        Item: { ...Key, status: 'in_progress', bodyHash, lockUntil: now + LOCK_S, [TTL_ATTRIBUTE]: now + DAY_S },
        // Free, expired (TTL deletion lags), or a lock abandoned by a crashed first attempt.
        ConditionExpression: 'attribute_not_exists(pk) OR #ttl < :now OR (#s = :inp AND lockUntil < :now)',
        ExpressionAttributeNames: { '#ttl': TTL_ATTRIBUTE, '#s': 'status' },
        ExpressionAttributeValues: { ':now': now, ':inp': 'in_progress' },
        ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
      }));
    } catch (e) {
      if (!(e instanceof ConditionalCheckFailedException)) throw e;
      const old = e.Item as Record<string, { S?: string; N?: string }> | undefined;
      if (old?.bodyHash?.S !== bodyHash) throw new IdempotencyKeyReused();
      if (old.status?.S !== 'done' || !old.reply?.S) throw new Conflict('a request with this Idempotency-Key is still in progress', 'IDEMPOTENCY_IN_PROGRESS');
      return JSON.parse(old.reply.S) as StoredReply;
    }
    let reply: StoredReply;
    try {
      reply = await work();
    } catch (err) {
      await db.send(new DeleteCommand({ TableName: tableName(), Key })).catch(() => undefined);
      throw err;
    }
    if (reply.status >= 200 && reply.status < 300) {
      await db.send(new UpdateCommand({
        TableName: tableName(), Key,
        UpdateExpression: 'SET #s = :done, reply = :reply REMOVE lockUntil',
        ExpressionAttributeNames: { '#s': 'status' },
        ExpressionAttributeValues: { ':done': 'done', ':reply': JSON.stringify(reply) },
      }));
    } else {
      await db.send(new DeleteCommand({ TableName: tableName(), Key }));
    }
    return reply;
  },
};
