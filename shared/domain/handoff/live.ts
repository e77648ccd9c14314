import { createHash, randomBytes } from 'node:crypto';
import { NotFound, Unauthorized } from '#shared/core/errors.ts';
import { logger } from '#shared/core/log.ts';
import type { DomainEvent } from '#shared/core/vocabulary.ts';
import { keys } from '#shared/data/keys.ts';
import { liveRepo, type LiveConnection } from '#shared/data/live.ts';
import { membersRepo } from '#shared/data/members.ts';
import { closeConnection, postToConnection } from '#shared/data/sockets.ts';
import { tenantsRepo } from '#shared/data/tenants.ts';
import type { Conversation } from '#shared/data/conversations.ts';
import { conversationOf, forCustomer } from '#shared/domain/events.ts';
import { assertOrigin, widgetTenant } from '#shared/domain/tenants/widget-auth.ts';

// The live channel: who may connect, and which events each connection receives. A member's
// socket gets every event of the tenant; a customer's only those of their conversation.

const TICKET_SECONDS = 60;
const hash = (secret: string) => createHash('sha256').update(secret).digest('base64url');
const TICKET_SHAPE = /^lt_([0-9a-f-]{36})\.([A-Za-z0-9_-]{43})$/;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[1-8][0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/i;

/** A one-time ticket for a member's socket, valid a minute: the ticket names its tenant, the table keeps only its hash. */
export async function issueLiveTicket(tenantId: string, userId: string) {
  const secret = randomBytes(32).toString('base64url');
  const expiresAt = Math.floor(Date.now() / 1000) + TICKET_SECONDS;
  await liveRepo.putTicket(tenantId, hash(secret), userId, expiresAt);
  return { ticket: `lt_${tenantId}.${secret}`, expiresAt: new Date(expiresAt * 1000).toISOString() };
}

/** `$connect`: a member with a live ticket, or a customer with the widget key and their conversation. */
export async function connectLive(connectionId: string, query: Record<string, string | undefined>, origin: string | undefined) {
  if (query.ticket !== undefined) {
    const m = TICKET_SHAPE.exec(query.ticket);
    const userId = m ? await liveRepo.takeTicket(m[1]!, hash(m[2]!)) : null;
    if (!m || !userId) throw new Unauthorized('unknown, used or expired live ticket');
    await liveRepo.connect(m[1]!, { connectionId, kind: 'member', userId });
    return;
  }
  const { tenantId } = await widgetTenant(query.widgetKey);
  const conversationId = query.conversationId ?? '';
  if (!UUID.test(conversationId)) throw new NotFound('conversation');
  const r = await tenantsRepo.getWith<Conversation>(tenantId, keys.conversation(tenantId, conversationId));
  if (!r.tenant) throw new Unauthorized('unknown widget key');
  assertOrigin(r.tenant, origin);
  if (!r.other) throw new NotFound('conversation');
  await liveRepo.connect(tenantId, { connectionId, kind: 'customer', conversationId });
}

export const disconnectLive = (connectionId: string) => liveRepo.disconnect(connectionId);

const receives = (c: LiveConnection, conversationId: string | null) =>
  c.kind === 'member' || (conversationId !== null && c.conversationId === conversationId);

/**
 * A tenant's open connections that may still receive its events: a member's socket outlives the
 * membership it was opened with, so the sockets of users who are no longer active members are
 * closed and forgotten here, before anything is pushed to them.
 */
async function receivers(tenantId: string): Promise<LiveConnection[]> {
  const conns = await liveRepo.connections(tenantId);
  const users = [...new Set(conns.flatMap((c) => (c.kind === 'member' ? [c.userId] : [])))];
  if (users.length === 0) return conns;
  const active = await membersRepo.activeAmong(tenantId, users);
  const current = (c: LiveConnection) => c.kind !== 'member' || active.has(c.userId);
  await Promise.all(conns.filter((c) => !current(c)).map(async (c) => {
    await closeConnection(c.connectionId);
    await liveRepo.disconnect(c.connectionId, tenantId);
  }));
  return conns.filter(current);
}

/**
 * Pushes events to the live connections of their tenants, in the order given. A connection that
 * is gone is forgotten; a push that fails otherwise is not retried (clients re-read on reconnect).
 */
export async function pushLive(list: DomainEvent[]): Promise<void> {
  const byTenant = new Map<string, Promise<LiveConnection[]>>();
  const gone = new Set<string>();
  for (const event of list) {
    let conns = byTenant.get(event.tenantId);
    if (!conns) { conns = receivers(event.tenantId); byTenant.set(event.tenantId, conns); }
    const conversationId = conversationOf(event);
    const full = JSON.stringify(event);
    const customer = JSON.stringify(forCustomer(event));
    const targets = (await conns).filter((c) => !gone.has(c.connectionId) && receives(c, conversationId));
    await Promise.all(targets.map(async (c) => {
      try {
        if (!(await postToConnection(c.connectionId, c.kind === 'member' ? full : customer))) {
          gone.add(c.connectionId);
          await liveRepo.disconnect(c.connectionId, event.tenantId);
        }
      } catch (e) {
        logger.warn('live push failed', { connectionId: c.connectionId, error: (e as Error).name });
      }
    }));
  }
}
