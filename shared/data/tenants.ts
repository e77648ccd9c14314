import { BatchGetCommand, GetCommand } from '@aws-sdk/lib-dynamodb';
import type { Actor, Role } from '#shared/core/vocabulary.ts';
import { db, tableName } from './client.ts';
import { clean, emailKeys, keys } from './keys.ts';
import type { Conversation } from './conversations.ts';
import { auditRepo, type AuditInput } from './audit.ts';
import { eventsRepo } from './events.ts';
import { intentsRepo, type Intent } from './intents.ts';
import { transact, type TxItem } from './tx.ts';

export interface Tenant {
  id: string;
  name: string;
  createdAt: string;
  updatedAt: string;
  config: Record<string, unknown>;
  /** Bumped by every intent write; the chat functions key their cached classifier by it. */
  intentsVersion: number;
  intentCount: number;
  /** Bumped by every article write; the chat functions key their cached knowledge index by it. Absent: 0. */
  articlesVersion?: number;
  articleCount?: number;
  /** Set while an import of articles writes (see shared/domain/knowledge/articles.ts). */
  articlesImportId?: string;
  articlesImportAt?: string;
  /** Bumped by the indexer after each pass that changed the tenant's sentence vectors (shared/data/vectors.ts). Absent: 0, no vectors. */
  vectorsVersion?: number;
  /** Bumped instead by a pass that changed only unanswered messages' vectors, which no chat model reads. Absent: 0. */
  unansweredVectorsVersion?: number;
  /** Taught `none` examples (at most 1,000); each write of one bumps intentsVersion. Absent: 0. */
  noneExampleCount?: number;
  /** Active owners; guarded `> 1` by demotions and removals so a tenant always keeps one. */
  ownerCount: number;
  /** Members and pending invitations, and integrations: kept by their writes, capped there. Absent: 0. */
  memberCount?: number;
  integrationCount?: number;
  /** Bumped by every settings write; PUT /settings writes on the condition that it is unchanged. */
  settingsVersion?: number;
  widgetKeyHash: string;
  widgetKeyPreview: string;
  widgetKeyCreatedAt: string;
  /** Signs visitors' user ids (HMAC-SHA256); kept whole, as verifying needs it, and shown only masked. */
  identitySecret?: string;
  identitySecretCreatedAt?: string;
  /** Set when the owner deleted the tenant: its widget key and members are gone, the purge job removes the rest. */
  deletingSince?: string;
  /** The local part of the inbound email address, unique across tenants (lookup item emailKeys.slug). */
  slug?: string;
}

export interface NewTenant {
  tenant: Tenant;
  owner: { sub: string; email: string | null };
  intents: Intent[];
}

/** The condition that the tenant's `attr` is still the value read (still absent when it was absent). */
const stillRead = (attr: string, read: string | number | undefined) =>
  read === undefined
    ? { condition: `attribute_exists(pk) AND attribute_not_exists(${attr})`, values: {} }
    : { condition: `${attr} = :read`, values: { ':read': read } };

/**
 * The slug's lookup item; its condition keeps a slug to one tenant. It is never deleted: a deleted
 * tenant's item stays as a tombstone (`retiredAt`, no tenant id), so no later tenant gets its
 * inbound or reply addresses.
 */
const slugItem = (tenantId: string, slug: string): TxItem => ({
  Put: { Item: { ...emailKeys.slug(slug), type: 'slug', tenantId }, ConditionExpression: 'attribute_not_exists(pk)' },
});

export const tenantsRepo = {
  /** `consistent` where a write is conditional on the version read here (settings). */
  /** A tenant item read in a caller's BatchGet. */
  fromItem: (item: Record<string, unknown>): Tenant => clean<Tenant>(item),

  async get(tenantId: string, consistent = false): Promise<Tenant | null> {
    const r = await db.send(
      new GetCommand({ TableName: tableName(), Key: keys.tenant(tenantId), ConsistentRead: consistent }),
    );
    return r.Item ? clean<Tenant>(r.Item) : null;
  },
  /** Name and config, conditional on `settingsVersion` being what was read (index 0). */
  async update(
    t: Tenant,
    next: { name: string; config: Record<string, unknown> },
    now: string,
    audit: AuditInput,
    also: TxItem[] = [],
  ): Promise<void> {
    const guard = stillRead('settingsVersion', t.settingsVersion);
    await transact([
      {
        Update: {
          Key: keys.tenant(t.id),
          UpdateExpression: 'SET #n = :n, config = :c, updatedAt = :now, settingsVersion = :next',
          ConditionExpression: guard.condition,
          ExpressionAttributeNames: { '#n': 'name' },
          ExpressionAttributeValues: {
            ':n': next.name,
            ':c': next.config,
            ':now': now,
            ':next': (t.settingsVersion ?? 0) + 1,
            ...guard.values,
          },
        },
      },
      auditRepo.tx.put(t.id, { ...audit, category: 'settings', createdAt: now }),
      ...also,
    ]);
  },

  /** Swaps the widget key lookup items and the tenant's key fields, conditional on the old hash (index 2). */
  async rotateWidgetKey(
    t: Tenant,
    wk: { hash: string; preview: string },
    now: string,
    audit: AuditInput,
    also: TxItem[] = [],
  ): Promise<void> {
    await transact([
      { Delete: { Key: keys.widgetKey(t.widgetKeyHash) } },
      {
        Put: {
          Item: { ...keys.widgetKey(wk.hash), type: 'widgetKey', tenantId: t.id, createdAt: now },
          ConditionExpression: 'attribute_not_exists(pk)',
        },
      },
      {
        Update: {
          Key: keys.tenant(t.id),
          UpdateExpression: 'SET widgetKeyHash = :h, widgetKeyPreview = :p, widgetKeyCreatedAt = :now',
          ConditionExpression: 'widgetKeyHash = :old',
          ExpressionAttributeValues: { ':h': wk.hash, ':p': wk.preview, ':now': now, ':old': t.widgetKeyHash },
        },
      },
      auditRepo.tx.put(t.id, { ...audit, category: 'settings', createdAt: now }),
      ...also,
    ]);
  },

  /** A new identity secret, conditional on the one read (so two rotations cannot both be shown as current). */
  async rotateIdentitySecret(t: Tenant, secret: string, now: string, audit: AuditInput): Promise<void> {
    const guard = stillRead('identitySecretCreatedAt', t.identitySecretCreatedAt);
    await transact([
      {
        Update: {
          Key: keys.tenant(t.id),
          UpdateExpression: 'SET identitySecret = :s, identitySecretCreatedAt = :now',
          ConditionExpression: guard.condition,
          ExpressionAttributeValues: { ':s': secret, ':now': now, ...guard.values },
        },
      },
      auditRepo.tx.put(t.id, { ...audit, category: 'settings', createdAt: now }),
    ]);
  },

  /** The tenant and one of its conversations in one round trip. */
  /** The tenant and one of its conversations, both read strongly, in one round trip. */
  async withConversation(
    tenantId: string,
    conversationId: string,
  ): Promise<{ tenant: Tenant | null; conversation: Conversation | null }> {
    const other = keys.conversation(tenantId, conversationId);
    const r = await db.send(
      new BatchGetCommand({
        RequestItems: { [tableName()]: { Keys: [keys.tenant(tenantId), other], ConsistentRead: true } },
      }),
    );
    const items = r.Responses?.[tableName()] ?? [];
    const tenant = items.find((i) => i.sk === 'TENANT');
    const found = items.find((i) => i.pk === other.pk && i.sk === other.sk);
    return { tenant: tenant ? clean<Tenant>(tenant) : null, conversation: found ? clean<Conversation>(found) : null };
  },

  /** The tenant whose inbound address has this local part; none once the tenant's deletion was asked for. */
  async tenantOfSlug(slug: string): Promise<string | null> {
    const r = await db.send(new GetCommand({ TableName: tableName(), Key: emailKeys.slug(slug) }));
    return r.Item && !r.Item.retiredAt ? ((r.Item.tenantId as string | undefined) ?? null) : null;
  },

  /** Gives a tenant made before inbound addresses its slug; fails (TxConditionFailed) when taken or already set. */
  async setSlug(tenantId: string, slug: string): Promise<void> {
    await transact([
      slugItem(tenantId, slug),
      {
        Update: {
          Key: keys.tenant(tenantId),
          UpdateExpression: 'SET slug = :s',
          ConditionExpression: 'attribute_exists(pk) AND attribute_not_exists(slug)',
          ExpressionAttributeValues: { ':s': slug },
        },
      },
    ]);
  },

  async tenantOfWidgetKey(hash: string): Promise<string | null> {
    const r = await db.send(
      new GetCommand({ TableName: tableName(), Key: keys.widgetKey(hash), ConsistentRead: true }),
    );
    return (r.Item?.tenantId as string | undefined) ?? null;
  },

  /**
   * Creates the tenant, the owner's membership and lookup item, the widget key lookup, the starter
   * intents and the audit entry in one transaction. The user lookup's condition makes concurrent
   * onboards of one user create one tenant: the others fail with TxConditionFailed at index 1; a
   * slug taken meanwhile fails at index 2.
   */
  async create({ tenant, owner, intents }: NewTenant): Promise<void> {
    const now = tenant.createdAt;
    const role: Role = 'owner';
    const actor: Actor = { type: 'user', id: owner.sub };
    const items: TxItem[] = [
      {
        Put: {
          Item: { ...keys.tenant(tenant.id), type: 'tenant', ...tenant },
          ConditionExpression: 'attribute_not_exists(pk)',
        },
      },
      {
        Put: {
          Item: { ...keys.user(owner.sub), type: 'user', sub: owner.sub, tenantId: tenant.id, role },
          ConditionExpression: 'attribute_not_exists(pk)',
        },
      },
      ...(tenant.slug ? [slugItem(tenant.id, tenant.slug)] : []),
      {
        Put: {
          Item: {
            ...keys.member(tenant.id, owner.sub),
            type: 'member',
            id: owner.sub,
            userId: owner.sub,
            email: owner.email,
            role,
            status: 'active',
            createdAt: now,
          },
        },
      },
      {
        Put: {
          Item: { ...keys.widgetKey(tenant.widgetKeyHash), type: 'widgetKey', tenantId: tenant.id, createdAt: now },
        },
      },
      ...intents.flatMap((i) => intentsRepo.tx.put(tenant.id, i)),
      // Today's starter intents need no review; an import (no intents) brings its own mark, or none.
      ...(intents.length ? [intentsRepo.tx.reviewed(tenant.id, now)] : []),
      auditRepo.tx.put(tenant.id, {
        category: 'auth',
        action: 'tenant.created',
        actor,
        target: { type: 'tenant', id: tenant.id },
        changes: { name: { from: null, to: tenant.name } },
        createdAt: now,
      }),
      // The starter intents get their sentence vectors.
      eventsRepo.tx.contentChanged(tenant.id, 'intents'),
    ];
    await transact(items);
  },
};
