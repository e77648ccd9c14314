import { eventsRepo } from './events.ts';
import { GetCommand, QueryCommand } from '@aws-sdk/lib-dynamodb';
import type { Actor, Role } from '#shared/core/vocabulary.ts';
import { db, tableName } from './client.ts';
import { batchGet, queryAll } from './lists.ts';
import { adminKeys, clean, keys, timeSortKey } from './keys.ts';
import { auditRepo } from './audit.ts';
import { transact, TxConditionFailed, type TxItem } from './tx.ts';
import { limitsRepo } from './limits.ts';

// Members of a tenant: `MEMBER#<sub>` (active, id = user sub) or `MEMBER#<inv_...>` (invited, also
// in gsi1 under EMAIL#email so that /auth/me finds it). `MEMBEREMAIL#email` guards one per email.

export interface Member {
  id: string;
  userId: string | null;
  email: string | null;
  role: Role;
  status: 'active' | 'invited';
  createdAt: string;
  /** The name the member chose (PATCH /auth/me), kept here too so that the list names everyone in one query. */
  displayName?: string;
}

const memberPut = (tenantId: string, m: Member, invited: boolean): TxItem => ({
  Put: {
    Item: {
      ...keys.member(tenantId, m.id),
      type: 'member',
      ...m,
      tenantId,
      ...(invited && m.email
        ? {
            ...keys.invitationsByEmail(m.email),
            gsi1sk: timeSortKey(m.createdAt, adminKeys.invitationsIndexSk(tenantId, m.id)),
          }
        : {}),
    },
    ConditionExpression: 'attribute_not_exists(pk)',
  },
});

/**
 * ADD `delta` owners; a decrement is conditional on another owner remaining. A removal also takes
 * one from the member tally here, as a transaction may touch the tenant item only once.
 */
const ownerCountAdd = (tenantId: string, delta: number, removal = false): TxItem => ({
  Update: {
    Key: keys.tenant(tenantId),
    UpdateExpression: removal ? 'ADD ownerCount :d, memberCount :d' : 'ADD ownerCount :d',
    ConditionExpression: delta < 0 ? 'attribute_exists(pk) AND ownerCount > :one' : 'attribute_exists(pk)',
    ExpressionAttributeValues: { ':d': delta, ...(delta < 0 ? { ':one': 1 } : {}) },
  },
});

const toMember = (i: Record<string, unknown>): Member => {
  const { tenantId, ...m } = clean<Member & { tenantId: string }>(i);
  void tenantId;
  return {
    id: m.id,
    userId: m.userId ?? null,
    email: m.email ?? null,
    role: m.role,
    status: m.status,
    createdAt: m.createdAt,
    ...(m.displayName ? { displayName: m.displayName } : {}),
  };
};

export interface Invitation extends Member {
  tenantId: string;
}

export interface Membership {
  tenantId: string;
  role: Role;
  userId: string;
  displayName: string | null;
}

export const membersRepo = {
  /** The user's membership through the `USER#sub` lookup item; one GetItem. */
  async membershipOf(sub: string): Promise<Membership | null> {
    const r = await db.send(new GetCommand({ TableName: tableName(), Key: keys.user(sub) }));
    if (!r.Item) return null;
    return {
      tenantId: r.Item.tenantId as string,
      role: r.Item.role as Role,
      userId: sub,
      displayName: (r.Item.displayName as string | undefined) ?? null,
    };
  },

  /**
   * The name a member's messages carry: on the user's lookup item (it comes with the membership)
   * and on the member item (the list names everyone), both or neither. False when either is gone.
   */
  async setDisplayName(tenantId: string, sub: string, displayName: string): Promise<boolean> {
    try {
      await transact([
        {
          Update: {
            Key: keys.user(sub),
            UpdateExpression: 'SET displayName = :n',
            ConditionExpression: 'attribute_exists(pk) AND tenantId = :t',
            ExpressionAttributeValues: { ':n': displayName, ':t': tenantId },
          },
        },
        {
          Update: {
            Key: keys.member(tenantId, sub),
            UpdateExpression: 'SET displayName = :n',
            ConditionExpression: 'attribute_exists(pk)',
            ExpressionAttributeValues: { ':n': displayName },
          },
        },
      ]);
      return true;
    } catch (e) {
      if (e instanceof TxConditionFailed) return false;
      throw e;
    }
  },

  /** Which of these user ids are active members of the tenant now (one strongly consistent BatchGet per 100). */
  async activeAmong(tenantId: string, userIds: string[]): Promise<Set<string>> {
    const items = await batchGet(
      userIds.map((id) => keys.member(tenantId, id)),
      true,
    );
    return new Set(items.filter((i) => i.status === 'active').map((i) => i.id as string));
  },

  async list(tenantId: string): Promise<Member[]> {
    const { pk, skPrefix } = keys.memberPrefix(tenantId);
    const items = await queryAll({
      partition: { name: 'pk', value: pk },
      sk: { beginsWith: skPrefix },
      consistent: true,
    });
    return items.map(toMember).sort((a, b) => a.createdAt.localeCompare(b.createdAt) || a.id.localeCompare(b.id));
  },

  async get(tenantId: string, id: string): Promise<Member | null> {
    const r = await db.send(
      new GetCommand({ TableName: tableName(), Key: keys.member(tenantId, id), ConsistentRead: true }),
    );
    return r.Item ? toMember(r.Item) : null;
  },

  /** Invitations for an email across tenants, oldest first (gsi1; eventually consistent). */
  async invitationsFor(email: string): Promise<Invitation[]> {
    const r = await db.send(
      new QueryCommand({
        TableName: tableName(),
        IndexName: 'gsi1',
        KeyConditionExpression: 'gsi1pk = :pk',
        ExpressionAttributeValues: { ':pk': keys.invitationsByEmail(email).gsi1pk },
        Limit: 20,
      }),
    );
    return (r.Items ?? [])
      .filter((i) => i.status === 'invited')
      .map((i) => ({ ...toMember(i), tenantId: i.tenantId as string }));
  },

  /** Invitation + email guard + audit + the tenant's tally. Fails at index 1 when the email is taken, at 3 when the tenant is full. */
  async invite(tenantId: string, m: Member, actor: Actor, max: number): Promise<void> {
    await transact([
      memberPut(tenantId, m, true),
      {
        Put: {
          Item: { ...adminKeys.memberEmail(tenantId, m.email!), type: 'memberEmail', memberId: m.id },
          ConditionExpression: 'attribute_not_exists(pk)',
        },
      },
      auditRepo.tx.put(tenantId, {
        category: 'member',
        action: 'member.invited',
        actor,
        target: { type: 'member', id: m.id },
        changes: { email: { from: null, to: m.email }, role: { from: null, to: m.role } },
        createdAt: m.createdAt,
      }),
      limitsRepo.tx.tally(tenantId, 'memberCount', 1, max),
      // The invitation email leaves through the outbox and the email queue, as replies do.
      eventsRepo.tx.put(tenantId, 'invitation.send', { memberId: m.id }, m.createdAt),
    ]);
  },

  /**
   * The invited user joins: the invitation becomes an active member whose id is their sub, and the
   * USER#sub lookup is put conditionally (index 2), so a user never ends up in two tenants.
   */
  async join(inv: Invitation, sub: string, now: string): Promise<Member> {
    const member: Member = { id: sub, userId: sub, email: inv.email, role: inv.role, status: 'active', createdAt: now };
    const items: TxItem[] = [
      {
        Delete: {
          Key: keys.member(inv.tenantId, inv.id),
          ConditionExpression: 'attribute_exists(pk) AND #s = :inv',
          ExpressionAttributeNames: { '#s': 'status' },
          ExpressionAttributeValues: { ':inv': 'invited' },
        },
      },
      memberPut(inv.tenantId, member, false),
      {
        Put: {
          Item: { ...keys.user(sub), type: 'user', sub, tenantId: inv.tenantId, role: inv.role },
          ConditionExpression: 'attribute_not_exists(pk)',
        },
      },
      { Put: { Item: { ...adminKeys.memberEmail(inv.tenantId, inv.email!), type: 'memberEmail', memberId: sub } } },
      auditRepo.tx.put(inv.tenantId, {
        category: 'member',
        action: 'member.joined',
        actor: { type: 'user', id: sub },
        target: { type: 'member', id: sub },
        changes: { status: { from: 'invited', to: 'active' }, userId: { from: null, to: sub } },
        createdAt: now,
      }),
    ];
    if (inv.role === 'owner') items.push(ownerCountAdd(inv.tenantId, 1));
    await transact(items);
    return member;
  },

  /**
   * Changes a role: member item (conditional on the role read, index 0), the USER#sub lookup the
   * auth middleware reads, the owner count (index 3 when present), the audit entry.
   */
  async setRole(tenantId: string, m: Member, role: Role, actor: Actor, now: string): Promise<void> {
    const items: TxItem[] = [
      {
        Update: {
          Key: keys.member(tenantId, m.id),
          UpdateExpression: 'SET #r = :r, updatedAt = :now',
          ConditionExpression: 'attribute_exists(pk) AND #r = :old',
          ExpressionAttributeNames: { '#r': 'role' },
          ExpressionAttributeValues: { ':r': role, ':old': m.role, ':now': now },
        },
      },
      auditRepo.tx.put(tenantId, {
        category: 'member',
        action: 'member.role_changed',
        actor,
        target: { type: 'member', id: m.id },
        changes: { role: { from: m.role, to: role } },
        createdAt: now,
      }),
    ];
    if (m.status === 'active') {
      items.push({
        Update: {
          Key: keys.user(m.id),
          UpdateExpression: 'SET #r = :r',
          ConditionExpression: 'tenantId = :t',
          ExpressionAttributeNames: { '#r': 'role' },
          ExpressionAttributeValues: { ':r': role, ':t': tenantId },
        },
      });
      if (m.role === 'owner') items.push(ownerCountAdd(tenantId, -1));
      else if (role === 'owner') items.push(ownerCountAdd(tenantId, 1));
    }
    await transact(items);
  },

  /** Removes a member (and its USER#sub lookup) or revokes an invitation; an owner's removal is guarded. */
  async remove(tenantId: string, m: Member, actor: Actor, now: string): Promise<void> {
    const items: TxItem[] = [
      {
        Delete: {
          Key: keys.member(tenantId, m.id),
          ConditionExpression: 'attribute_exists(pk) AND #r = :old',
          ExpressionAttributeNames: { '#r': 'role' },
          ExpressionAttributeValues: { ':old': m.role },
        },
      },
      auditRepo.tx.put(tenantId, {
        category: 'member',
        action: m.status === 'invited' ? 'member.invitation_revoked' : 'member.removed',
        actor,
        target: { type: 'member', id: m.id },
        changes: { role: { from: m.role, to: null }, status: { from: m.status, to: null } },
        createdAt: now,
      }),
    ];
    if (m.email) items.push({ Delete: { Key: adminKeys.memberEmail(tenantId, m.email) } });
    if (m.status === 'active') {
      items.push({
        Delete: {
          Key: keys.user(m.id),
          ConditionExpression: 'attribute_not_exists(pk) OR tenantId = :t',
          ExpressionAttributeValues: { ':t': tenantId },
        },
      });
    }
    items.push(
      m.status === 'active' && m.role === 'owner'
        ? ownerCountAdd(tenantId, -1, true)
        : limitsRepo.tx.tally(tenantId, 'memberCount', -1),
    );
    await transact(items);
  },

  tx: {
    /** Holds only while `id` is an active member of the tenant. */
    activeCheck: (tenantId: string, id: string): TxItem => ({
      ConditionCheck: {
        Key: keys.member(tenantId, id),
        ConditionExpression: '#s = :active',
        ExpressionAttributeNames: { '#s': 'status' },
        ExpressionAttributeValues: { ':active': 'active' },
      },
    }),
  },
};
