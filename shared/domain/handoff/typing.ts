import { Forbidden, ValidationError } from '#shared/core/errors.ts';
import { logger } from '#shared/core/log.ts';
import { roleAtLeast, TYPING } from '#shared/core/vocabulary.ts';
import { liveRepo, type LiveConnection } from '#shared/data/live.ts';
import { membersRepo } from '#shared/data/members.ts';
import { postToConnection } from '#shared/data/sockets.ts';
import { tenantsRepo } from '#shared/data/tenants.ts';
import { displayNameOf } from '#shared/domain/tenants/me.ts';
import { clock } from '#shared/core/clock.ts';

// "Someone is typing" over the live channel. A socket sends `{ action: "typing", conversationId }`
// while its person types (clients send at most one every TYPING.signalEverySeconds); the other
// side's sockets of that conversation get `{ type: "typing", data: { conversationId, role, name } }`
// and show it for TYPING.shownSeconds. Nothing is written: each frame reads who the connection is
// (the membership and role, or that the widget key still holds) and who receives it, and posts.

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[1-8][0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/i;

/**
 * A connection's frames closer together than this are dropped before any read (per container: a
 * second container may relay one more). Below the clients' interval, so a steady typist is never cut.
 */
const MIN_GAP_MS = TYPING.signalEverySeconds * 1000 - 500;
const lastSignal = new Map<string, number>();
const MAX_TRACKED = 10_000;

function tooSoon(connectionId: string, now: number): boolean {
  const last = lastSignal.get(connectionId);
  if (last !== undefined && now - last < MIN_GAP_MS) return true;
  if (lastSignal.size >= MAX_TRACKED) lastSignal.clear();
  lastSignal.set(connectionId, now);
  return false;
}

function conversationIdOf(body: string | undefined): string {
  let frame: unknown;
  try {
    frame = JSON.parse(body ?? '');
  } catch {
    frame = null;
  }
  const id = (frame as { conversationId?: unknown } | null)?.conversationId;
  if (typeof id !== 'string' || !UUID.test(id)) {
    throw new ValidationError('a typing frame is { "action": "typing", "conversationId": "<uuid>" }', [
      { path: 'conversationId', message: 'must be a conversation id' },
    ]);
  }
  return id.toLowerCase();
}

/** The `typing` route: relays one frame to the other side of the conversation. */
export async function relayTyping(connectionId: string, body: string | undefined): Promise<void> {
  const conversationId = conversationIdOf(body);
  if (tooSoon(connectionId, clock.now())) return;
  const sender = await liveRepo.lookup(connectionId);
  if (!sender) return;
  const { tenantId } = sender;

  let data: { conversationId: string; role: 'agent' | 'user'; name?: string };
  let receivers: LiveConnection[];
  if (sender.kind === 'customer') {
    if (sender.conversationId !== conversationId)
      throw new Forbidden("a customer's socket signals only its own conversation");
    const [tenant, members] = await Promise.all([
      tenantsRepo.get(tenantId),
      liveRepo.openOf(tenantId, { kind: 'member' }),
    ]);
    // A key rotated out: its sockets are closed by the next event; they relay nothing meanwhile.
    if (tenant?.widgetKeyHash !== sender.keyHash) return;
    const users = [...new Set(members.flatMap((c) => (c.kind === 'member' ? [c.userId] : [])))];
    const active = users.length ? await membersRepo.activeAmong(tenantId, users) : new Set<string>();
    receivers = members.filter((c) => c.kind === 'member' && active.has(c.userId));
    data = { conversationId, role: 'user' };
  } else {
    const [membership, customers, tenant] = await Promise.all([
      membersRepo.membershipOf(sender.userId),
      liveRepo.openOf(tenantId, { kind: 'customer', conversationId }),
      tenantsRepo.get(tenantId),
    ]);
    if (!membership || membership.tenantId !== tenantId) return;
    if (!roleAtLeast(membership.role, 'agent')) throw new Forbidden('only agents write to customers');
    const email = membership.displayName ? null : ((await membersRepo.get(tenantId, sender.userId))?.email ?? null);
    receivers = customers.filter((c) => c.kind === 'customer' && c.keyHash === tenant?.widgetKeyHash);
    data = { conversationId, role: 'agent', name: displayNameOf(membership, { email }) };
  }
  if (receivers.length === 0) return;
  const frame = JSON.stringify({ type: 'typing', data });
  await Promise.all(
    receivers.map(async (c) => {
      try {
        await postToConnection(c.connectionId, frame);
      } catch (e) {
        logger.warn('typing push failed', { connectionId: c.connectionId, error: (e as Error).name });
      }
    }),
  );
}
