import { GetCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import type { IntegrationStatus, IntegrationType } from '#shared/core/vocabulary.ts';
import { conditional, db, tableName } from './client.ts';
import { queryAll } from './lists.ts';
import { clean, keys } from './keys.ts';
import { auditRepo, type AuditInput } from './audit.ts';
import { transact, TxConditionFailed } from './tx.ts';
import { limitsRepo } from './limits.ts';

/** Credentials as stored: envelope-encrypted (see the domain's credentials module). */
export interface Sealed {
  scheme: 'kms' | 'local';
  ciphertext: string;
  iv: string;
  tag: string;
  encryptedKey: string;
}

/** Stored form: credentials sealed, plus their masks so that reads never need a decryption. */
export interface IntegrationItem {
  id: string;
  type: IntegrationType;
  name: string;
  status: IntegrationStatus;
  config: Record<string, unknown>;
  sealed: Sealed;
  masked: Record<string, string>;
  createdAt: string;
  updatedAt: string;
  /** Set by the first failed delivery attempt after the last success (the 5-day disable rule). */
  failingSince?: string;
}
const fromItem = (i: Record<string, unknown>): IntegrationItem => {
  const { integrationType, ...rest } = clean<
    Omit<IntegrationItem, 'type'> & { integrationType: IntegrationItem['type'] }
  >(i);
  return { ...rest, type: integrationType };
};

export const integrationsRepo = {
  async list(tenantId: string): Promise<IntegrationItem[]> {
    const { pk, skPrefix } = keys.integrationPrefix(tenantId);
    const items = await queryAll({ partition: { name: 'pk', value: pk }, sk: { beginsWith: skPrefix } });
    return items.map(fromItem).sort((a, b) => a.createdAt.localeCompare(b.createdAt));
  },

  async get(tenantId: string, id: string): Promise<IntegrationItem | null> {
    const r = await db.send(
      new GetCommand({ TableName: tableName(), Key: keys.integration(tenantId, id), ConsistentRead: true }),
    );
    return r.Item ? fromItem(r.Item) : null;
  },

  /**
   * Create (`before` null; counted in the tenant's tally, failing at index 2 past `max`) or full
   * replacement conditional on the `updatedAt` read.
   */
  async put(
    tenantId: string,
    item: IntegrationItem,
    before: IntegrationItem | null,
    audit: AuditInput,
    max?: number,
  ): Promise<void> {
    await transact([
      {
        Put: {
          // `type` is the table's entity marker, so the integration's own type is stored as `integrationType`.
          Item: { ...keys.integration(tenantId, item.id), ...item, type: 'integration', integrationType: item.type },
          ConditionExpression: before ? 'updatedAt = :u' : 'attribute_not_exists(pk)',
          ...(before ? { ExpressionAttributeValues: { ':u': before.updatedAt } } : {}),
        },
      },
      auditRepo.tx.put(tenantId, { ...audit, category: 'integration', createdAt: item.updatedAt }),
      ...(before ? [] : [limitsRepo.tx.tally(tenantId, 'integrationCount', 1, max)]),
    ]);
  },

  /** The start of the current run of failures: set now unless already set. Null if the integration is gone. */
  async markFailing(tenantId: string, id: string, now: string): Promise<string | null> {
    const r = await conditional(
      db.send(
        new UpdateCommand({
          TableName: tableName(),
          Key: keys.integration(tenantId, id),
          UpdateExpression: 'SET failingSince = if_not_exists(failingSince, :now)',
          ConditionExpression: 'attribute_exists(pk)',
          ExpressionAttributeValues: { ':now': now },
          ReturnValues: 'UPDATED_NEW',
        }),
      ),
    );
    return r ? (r.Attributes?.failingSince as string) : null;
  },

  async clearFailing(tenantId: string, id: string): Promise<void> {
    await conditional(
      db.send(
        new UpdateCommand({
          TableName: tableName(),
          Key: keys.integration(tenantId, id),
          UpdateExpression: 'REMOVE failingSince',
          ConditionExpression: 'attribute_exists(failingSince)',
        }),
      ),
    );
  },

  /** Active -> disabled with its audit entry; false if it was not active (already disabled, or gone). */
  async disable(tenantId: string, id: string, audit: AuditInput, now: string): Promise<boolean> {
    try {
      await transact([
        {
          Update: {
            Key: keys.integration(tenantId, id),
            UpdateExpression: 'SET #status = :disabled REMOVE failingSince',
            ConditionExpression: '#status = :active',
            ExpressionAttributeNames: { '#status': 'status' },
            ExpressionAttributeValues: { ':disabled': 'disabled', ':active': 'active' },
          },
        },
        auditRepo.tx.put(tenantId, { ...audit, category: 'integration', createdAt: now }),
      ]);
      return true;
    } catch (e) {
      if (e instanceof TxConditionFailed) return false;
      throw e;
    }
  },

  async remove(tenantId: string, item: IntegrationItem, audit: AuditInput, now: string): Promise<void> {
    await transact([
      { Delete: { Key: keys.integration(tenantId, item.id), ConditionExpression: 'attribute_exists(pk)' } },
      auditRepo.tx.put(tenantId, { ...audit, category: 'integration', createdAt: now }),
      limitsRepo.tx.tally(tenantId, 'integrationCount', -1),
    ]);
  },
};
