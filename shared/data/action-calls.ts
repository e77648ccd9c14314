import { QueryCommand } from '@aws-sdk/lib-dynamodb';
import { db, tableName } from './client.ts';
import { clean, keys } from './keys.ts';
import { eventsRepo } from './events.ts';
import { TTL_ATTRIBUTE } from './table.ts';
import { transact, TxConditionFailed, type TxItem } from './tx.ts';
import { clock } from '#shared/core/clock.ts';

// The recent calls of an action integration, for the team to see that its endpoint answers:
// one small item per call, written in the chat turn's own transaction, gone after a week (TTL).
// Access patterns: the newest calls of one integration (Query on its partition, newest first);
// the guard that lets one `action.failed` event out per integration per minute.

export type ActionStatus = 'ok' | 'failed' | 'timeout' | 'skipped';

export interface ActionCall {
  id: string;
  intent: string;
  status: ActionStatus;
  latencyMs: number;
  /** The endpoint's HTTP status, or null when none answered. */
  httpStatus: number | null;
  /** Why it failed, short; null when it answered. */
  error: string | null;
  conversationId: string | null;
  createdAt: string;
}

const KEEP_S = 7 * 24 * 3600;
/** Calls listed per integration: the log is for a glance, not an archive. */
export const RECENT_CALLS = 20;

export const actionCallsRepo = {
  tx: {
    put(tenantId: string, integrationId: string, call: ActionCall): TxItem {
      return {
        Put: {
          Item: {
            ...keys.actionCall(tenantId, integrationId, call.id),
            type: 'actionCall',
            integrationId,
            ...call,
            [TTL_ATTRIBUTE]: Math.floor(Date.parse(call.createdAt) / 1000) + KEEP_S,
          },
        },
      };
    },
  },

  async recent(tenantId: string, integrationId: string): Promise<ActionCall[]> {
    const r = await db.send(
      new QueryCommand({
        TableName: tableName(),
        KeyConditionExpression: 'pk = :p AND begins_with(sk, :c)',
        ExpressionAttributeValues: { ':p': keys.actionCallsPartition(tenantId, integrationId), ':c': 'CALL#' },
        ScanIndexForward: false,
        Limit: RECENT_CALLS,
      }),
    );
    const now = clock.seconds();
    return (r.Items ?? [])
      .filter((i) => !(Number(i[TTL_ATTRIBUTE]) < now))
      .map((i) => {
        const { integrationId: _, [TTL_ATTRIBUTE]: _ttl, ...call } = clean<ActionCall & Record<string, unknown>>(i);
        return call as ActionCall;
      });
  },

  /**
   * The `action.failed` event, unless one went out for this integration in the last minute: the
   * guard's condition and the event share one transaction. False when the guard held it back.
   */
  async failedEvent(
    tenantId: string,
    integrationId: string,
    data: Record<string, unknown>,
    at: string,
  ): Promise<boolean> {
    const nowS = Math.floor(Date.parse(at) / 1000);
    try {
      await transact([
        {
          Update: {
            Key: keys.actionFailedGuard(tenantId, integrationId),
            UpdateExpression: 'SET sentAt = :now, #ttl = :ttl',
            ConditionExpression: 'attribute_not_exists(sentAt) OR sentAt <= :minuteAgo',
            ExpressionAttributeNames: { '#ttl': TTL_ATTRIBUTE },
            ExpressionAttributeValues: { ':now': nowS, ':minuteAgo': nowS - 60, ':ttl': nowS + 120 },
          },
        },
        eventsRepo.tx.put(tenantId, 'action.failed', data, at),
      ]);
      return true;
    } catch (e) {
      if (e instanceof TxConditionFailed) return false;
      throw e;
    }
  },
};
