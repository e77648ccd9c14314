import { createHash, randomBytes } from 'node:crypto';
import { Forbidden, NotFound, RateLimited, Unauthorized } from '#shared/core/errors.ts';
import { logger } from '#shared/core/log.ts';
import type { DomainEvent } from '#shared/core/vocabulary.ts';
import { liveRepo, type LiveConnection } from '#shared/data/live.ts';
import { membersRepo } from '#shared/data/members.ts';
import { postToConnection } from '#shared/data/sockets.ts';
import { tenantsRepo } from '#shared/data/tenants.ts';
import { conversationOf, customerSees, forCustomer } from '#shared/domain/events.ts';
import { assertOrigin, widgetTenant } from '#shared/domain/tenants/widget-auth.ts';
import { hashWidgetKey } from '#shared/domain/tenants/widget-keys.ts';
import { LIMITS } from '#shared/domain/limits.ts';
import { clock } from '#shared/core/clock.ts';

// The live channel: who may connect, and which events each connection receives. A member's
// socket gets every event of the tenant; a customer's only those of their conversation.

const TICKET_SECONDS = 60;
/** A refused upgrade has no header to carry it; the body says when a place may be free. */
const RETRY_SOCKET_SECONDS = 10;
const hash = (secret: string) => createHash('sha256').update(secret).digest('base64url');
const TICKET_SHAPE = /^lt_([0-9a-f-]{36})\.([A-Za-z0-9_-]{43})$/;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[1-8][0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/i;

/** A one-time ticket for a member's socket, valid a minute: the ticket names its tenant, the table keeps only its hash. */
export async function issueLiveTicket(tenantId: string, userId: string) {
  const secret = randomBytes(32).toString('base64url');
  const expiresAt = clock.seconds() + TICKET_SECONDS;
  await liveRepo.putTicket(tenantId, hash(secret), userId, expiresAt);
  return { ticket: `lt_${tenantId}.${secret}`, expiresAt: new Date(expiresAt * 1000).toISOString() };
}

/** `$connect`: a member with a live ticket, or a customer with the widget key and their conversation. */
export async function connectLive(
  connectionId: string,
  query: Record<string, string | undefined>,
  origin: string | undefined,
) {
  if (query.ticket !== undefined) {
    const m = TICKET_SHAPE.exec(query.ticket);
    const userId = m ? await liveRepo.takeTicket(m[1]!, hash(m[2]!)) : null;
    if (!m || !userId) throw new Unauthorized('unknown, used or expired live ticket');
    const tenantId = m[1]!;
    // The ticket outlives a membership removed, or a tenant deleted, within its minute: both are read now.
    const [member, tenant] = await Promise.all([membersRepo.get(tenantId, userId), tenantsRepo.get(tenantId, true)]);
    if (!tenant || tenant.deletingSince) throw new Unauthorized('unknown, used or expired live ticket');
    if (member?.status !== 'active') throw new Forbidden('no longer a member of this tenant');
    if (!(await liveRepo.connect(tenantId, { connectionId, kind: 'member', userId }, LIMITS.socketsPerMember))) {
      throw new RateLimited(`at most ${LIMITS.socketsPerMember} live connections per member`, RETRY_SOCKET_SECONDS);
    }
    return;
  }
  const { tenantId } = await widgetTenant(query.widgetKey);
  const conversationId = query.conversationId ?? '';
  if (!UUID.test(conversationId)) throw new NotFound('conversation');
  const r = await tenantsRepo.withConversation(tenantId, conversationId);
  // Read fresh: a key rotated out is refused here even while the key cache still knows it.
  const keyHash = hashWidgetKey(query.widgetKey!);
  if (!r.tenant || r.tenant.widgetKeyHash !== keyHash) throw new Unauthorized('unknown widget key');
  assertOrigin(r.tenant, origin);
  if (!r.conversation) throw new NotFound('conversation');
  if (
    !(await liveRepo.connect(
      tenantId,
      { connectionId, kind: 'customer', conversationId, keyHash },
      LIMITS.customerSocketsPerConversation,
    ))
  ) {
    throw new RateLimited(
      `at most ${LIMITS.customerSocketsPerConversation} live connections per conversation`,
      RETRY_SOCKET_SECONDS,
    );
  }
}

export const disconnectLive = (connectionId: string) => liveRepo.disconnect(connectionId);

/**
 * The open sockets that receive an event: the tenant's members' and, for an event of a
 * conversation, that conversation's customers' (two Queries, whatever other conversations hold).
 * A member's socket outlives the membership it was opened with, and a customer's the widget key:
 * those are closed and forgotten here, before anything is pushed to them.
 */
async function receivers(
  tenantId: string,
  conversationId: string | null,
  currentKey: () => Promise<string | null>,
): Promise<LiveConnection[]> {
  const conns = await liveRepo.receiversOf(tenantId, conversationId);
  const users = [...new Set(conns.flatMap((c) => (c.kind === 'member' ? [c.userId] : [])))];
  const active = users.length ? await membersRepo.activeAmong(tenantId, users) : new Set<string>();
  const key = conns.some((c) => c.kind === 'customer') ? await currentKey() : null;
  const current = (c: LiveConnection) => (c.kind === 'member' ? active.has(c.userId) : c.keyHash === key);
  await Promise.all(conns.filter((c) => !current(c)).map((c) => liveRepo.drop(c.connectionId)));
  return conns.filter(current);
}

/**
 * After a widget key rotation: closes and forgets every customer socket of the tenant that was
 * opened with another key than the current one (read fresh), whether or not an event is coming.
 */
export async function closeRotatedOut(tenantId: string): Promise<void> {
  const [tenant, customers] = await Promise.all([tenantsRepo.get(tenantId, true), liveRepo.customers(tenantId)]);
  // A tenant being deleted has no current key: every customer socket closes.
  const key = tenant?.deletingSince ? null : (tenant?.widgetKeyHash ?? null);
  await Promise.all(
    customers.filter((c) => c.kind === 'customer' && c.keyHash !== key).map((c) => liveRepo.drop(c.connectionId)),
  );
}

/** After an erasure: closes and forgets the customer sockets of the erased conversations. */
export async function closeCustomerSockets(tenantId: string, conversationIds: string[]): Promise<void> {
  const open = await Promise.all(
    conversationIds.map((conversationId) => liveRepo.openOf(tenantId, { kind: 'customer', conversationId })),
  );
  await Promise.all(open.flat().map((c) => liveRepo.drop(c.connectionId)));
}

/**
 * Pushes events to the live connections that see them, in the order given. A connection that is
 * gone is forgotten; a push that fails otherwise is not retried (clients re-read on reconnect).
 */
export async function pushLive(list: DomainEvent[]): Promise<void> {
  const found = new Map<string, Promise<LiveConnection[]>>();
  const keyOf = new Map<string, Promise<string | null>>();
  const gone = new Set<string>();
  for (const event of list) {
    const conversationId = conversationOf(event);
    const at = `${event.tenantId}/${conversationId ?? ''}`;
    let conns = found.get(at);
    if (!conns) {
      const tenantKey = () => {
        let k = keyOf.get(event.tenantId);
        if (!k) {
          k = tenantsRepo.get(event.tenantId, true).then((t) => t?.widgetKeyHash ?? null);
          keyOf.set(event.tenantId, k);
        }
        return k;
      };
      conns = receivers(event.tenantId, conversationId, tenantKey);
      found.set(at, conns);
    }
    const full = JSON.stringify(event);
    const customer = JSON.stringify(forCustomer(event));
    const targets = (await conns).filter(
      (c) => !gone.has(c.connectionId) && (c.kind === 'member' || customerSees(event)),
    );
    await Promise.all(
      targets.map(async (c) => {
        try {
          if (!(await postToConnection(c.connectionId, c.kind === 'member' ? full : customer))) {
            gone.add(c.connectionId);
            await liveRepo.disconnect(c.connectionId);
          }
        } catch (e) {
          logger.warn('live push failed', { connectionId: c.connectionId, error: (e as Error).name });
        }
      }),
    );
  }
}
