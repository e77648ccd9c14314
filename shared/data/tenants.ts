import { BatchGetCommand, GetCommand } from '@aws-sdk/lib-dynamodb';
import type { Role } from '#shared/routes.ts';
import { db, tableName } from './client.ts';
import { keys } from './keys.ts';
import { auditPut, clean, type Actor } from './items.ts';
import { intentPuts, type Intent } from './intents.ts';
import { transact, type TxItem } from './tx.ts';

export interface Tenant {
  id: string; name: string; createdAt: string; updatedAt: string;
  config: Record<string, unknown>;
  /** Bumped by every intent write; the chat functions key their cached classifier by it. */
  intentsVersion: number;
  intentCount: number;
  /** Active owners; guarded `> 1` by demotions and removals so a tenant always keeps one. */
  ownerCount: number;
  /** Bumped by every settings write; PUT /settings writes on the condition that it is unchanged. */
  settingsVersion?: number;
  widgetKeyHash: string; widgetKeyPreview: string; widgetKeyCreatedAt: string;
}

export interface NewTenant {
  tenant: Tenant; owner: { sub: string; email: string | null }; intents: Intent[];
}

export const tenantsRepo = {
  async get(tenantId: string): Promise<Tenant | null> {
    const r = await db.send(new GetCommand({ TableName: tableName(), Key: keys.tenant(tenantId) }));
    return r.Item ? clean<Tenant>(r.Item) : null;
  },

  /** The tenant and one of its conversations in one round trip. */
  async getWith<T>(tenantId: string, other: { pk: string; sk: string }): Promise<{ tenant: Tenant | null; other: T | null }> {
    const r = await db.send(new BatchGetCommand({
      RequestItems: { [tableName()]: { Keys: [keys.tenant(tenantId), other], ConsistentRead: true } },
    }));
    const items = r.Responses?.[tableName()] ?? [];
    const tenant = items.find((i) => i.sk === 'TENANT');
    const found = items.find((i) => i.pk === other.pk && i.sk === other.sk);
    return { tenant: tenant ? clean<Tenant>(tenant) : null, other: found ? clean<T>(found) : null };
  },

  async tenantOfWidgetKey(hash: string): Promise<string | null> {
    const r = await db.send(new GetCommand({ TableName: tableName(), Key: keys.widgetKey(hash) }));
    return (r.Item?.tenantId as string | undefined) ?? null;
  },

  /**
   * Creates the tenant, the owner's membership and lookup item, the widget key lookup, the starter
   * intents and the audit entry in one transaction. The user lookup's condition makes concurrent
   * onboards of one user create one tenant: the others fail with TxConditionFailed at index 1.
   */
  async create({ tenant, owner, intents }: NewTenant): Promise<void> {
    const now = tenant.createdAt;
    const role: Role = 'owner';
    const actor: Actor = { type: 'user', id: owner.sub };
    const items: TxItem[] = [
      { Put: { Item: { ...keys.tenant(tenant.id), type: 'tenant', ...tenant }, ConditionExpression: 'attribute_not_exists(pk)' } },
      { Put: { Item: { ...keys.user(owner.sub), type: 'user', sub: owner.sub, tenantId: tenant.id, role }, ConditionExpression: 'attribute_not_exists(pk)' } },
      {
        Put: {
          Item: {
            ...keys.member(tenant.id, owner.sub), type: 'member', id: owner.sub, userId: owner.sub, email: owner.email,
            role, status: 'active', createdAt: now,
          },
        },
      },
      { Put: { Item: { ...keys.widgetKey(tenant.widgetKeyHash), type: 'widgetKey', tenantId: tenant.id, createdAt: now } } },
      ...intents.flatMap((i) => intentPuts(tenant.id, i)),
      auditPut(tenant.id, {
        category: 'auth', action: 'tenant.created', actor, target: { type: 'tenant', id: tenant.id },
        changes: { name: { from: null, to: tenant.name } }, createdAt: now,
      }),
    ];
    await transact(items);
  },
};
