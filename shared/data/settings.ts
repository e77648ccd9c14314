import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { db, tableName } from './client.ts';
import { keys } from './keys.ts';
import { auditPut, clean, type AuditEntry } from './items.ts';
import type { Tenant } from './tenants.ts';
import { transact } from './tx.ts';

type AuditInput = Omit<AuditEntry, 'id' | 'createdAt' | 'category'>;

export const settingsRepo = {
  /** Strongly consistent: a settings write is conditional on the version read here. */
  async tenant(tenantId: string): Promise<Tenant | null> {
    const r = await db.send(new GetCommand({ TableName: tableName(), Key: keys.tenant(tenantId), ConsistentRead: true }));
    return r.Item ? clean<Tenant>(r.Item) : null;
  },

  /** Name and config, conditional on `settingsVersion` being what was read (index 0). */
  async update(t: Tenant, next: { name: string; config: Record<string, unknown> }, now: string, audit: AuditInput): Promise<void> {
    const v = t.settingsVersion;
    await transact([
      {
        Update: {
          Key: keys.tenant(t.id),
          UpdateExpression: 'SET #n = :n, config = :c, updatedAt = :now, settingsVersion = :next',
          ConditionExpression: v === undefined ? 'attribute_exists(pk) AND attribute_not_exists(settingsVersion)' : 'settingsVersion = :v',
          ExpressionAttributeNames: { '#n': 'name' },
          ExpressionAttributeValues: { ':n': next.name, ':c': next.config, ':now': now, ':next': (v ?? 0) + 1, ...(v === undefined ? {} : { ':v': v }) },
        },
      },
      auditPut(t.id, { ...audit, category: 'settings', createdAt: now }),
    ]);
  },

  /** Swaps the widget key lookup items and the tenant's key fields, conditional on the old hash (index 2). */
  async rotateWidgetKey(t: Tenant, wk: { hash: string; preview: string }, now: string, audit: AuditInput): Promise<void> {
    await transact([
      { Delete: { Key: keys.widgetKey(t.widgetKeyHash) } },
      { Put: { Item: { ...keys.widgetKey(wk.hash), type: 'widgetKey', tenantId: t.id, createdAt: now }, ConditionExpression: 'attribute_not_exists(pk)' } },
      {
        Update: {
          Key: keys.tenant(t.id),
          UpdateExpression: 'SET widgetKeyHash = :h, widgetKeyPreview = :p, widgetKeyCreatedAt = :now',
          ConditionExpression: 'widgetKeyHash = :old',
          ExpressionAttributeValues: { ':h': wk.hash, ':p': wk.preview, ':now': now, ':old': t.widgetKeyHash },
        },
      },
      auditPut(t.id, { ...audit, category: 'settings', createdAt: now }),
    ]);
  },
};
