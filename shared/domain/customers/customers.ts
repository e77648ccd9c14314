import { Conflict, Unauthorized } from '#shared/core/errors.ts';
import { conversationsRepo, type Conversation, type Visitor } from '#shared/data/conversations.ts';
import { customersRepo } from '#shared/data/customers.ts';
import { retrying, transact } from '#shared/data/tx.ts';
import { verifyIdentity } from '#shared/domain/tenants/identity.ts';
import { freshTenant, widgetConversation } from '#shared/domain/tenants/widget-auth.ts';
import { conversationTitle } from './visitors.ts';
import { sameValue } from '#shared/domain/audit-value.ts';
import { clock } from '#shared/core/clock.ts';

/** How many of a visitor's conversations the widget and the dashboard's customer panel list. */
export const VISITOR_CONVERSATIONS = 50;

const listed = (c: Conversation) => ({
  id: c.id,
  status: c.status,
  title: conversationTitle(c),
  updatedAt: c.updatedAt,
  channel: c.channel ?? 'widget',
});

// One customer across channels: a verified visitor (the site signed their user id) and the email
// threads of an address verified on both sides: signed by the site beside that id (`emailHash`),
// and the sender's SPF, DKIM and DMARC passing. Either side unverified links nothing, and every
// lookup is in the caller's tenant (another tenant's same address is another customer).

/** An address verified for this conversation's customer, or null. */
const verifiedEmail = (c: Conversation) =>
  c.visitor?.verified && c.visitor.emailVerified && c.visitor.email ? c.visitor.email : null;

/**
 * The conversations an address links: verified email threads from it and, `widget: true`, verified
 * visitors' that the site signed it for. `known`: conversations the caller already holds, not read again.
 */
async function linkedTo(
  tenantId: string,
  emails: Iterable<string>,
  widget: boolean,
  known: readonly Conversation[] = [],
): Promise<Conversation[]> {
  const wanted = new Set(emails);
  if (!wanted.size) return [];
  const held = new Set(known.map((c) => c.id));
  const ids = (await Promise.all([...wanted].map((e) => customersRepo.conversationsOfEmail(tenantId, e))))
    .flat()
    .filter((id) => !held.has(id));
  const found = await conversationsRepo.batchGet(tenantId, ids);
  return found.filter((c) => {
    const e = verifiedEmail(c);
    return e !== null && wanted.has(e) && (c.channel === 'email' || (widget && c.visitor!.userId !== null));
  });
}

const newestFirst = (lists: Conversation[][]) =>
  [...new Map(lists.flat().map((c) => [c.id, c])).values()]
    .sort((a, b) => b.createdAt.localeCompare(a.createdAt) || b.id.localeCompare(a.id))
    .slice(0, VISITOR_CONVERSATIONS);

/** A verified visitor's conversations and the email threads of the addresses signed for them (`signed`: one more, signed now). */
async function ofVerifiedUser(tenantId: string, userId: string, signed: string | null = null): Promise<Conversation[]> {
  const own = await conversationsRepo.ofVisitor(tenantId, userId, VISITOR_CONVERSATIONS);
  const emails = [
    ...own.flatMap((c) => {
      const e = verifiedEmail(c);
      return e ? [e] : [];
    }),
    ...(signed ? [signed] : []),
  ];
  return newestFirst([own, await linkedTo(tenantId, emails, false, own)]);
}

/** The ids of the email threads linked to a verified user (export and erasure by user id cover them). */
export async function linkedEmailThreads(tenantId: string, userId: string): Promise<string[]> {
  return (await ofVerifiedUser(tenantId, userId)).filter((c) => c.channel === 'email').map((c) => c.id);
}

/**
 * A verified visitor's conversations on any device, newest first, with the email threads linked to
 * them (read-only in the widget); a hash that does not match is 401. `email` with `emailHash` (the
 * address signed now) links its threads before the visitor has chatted with it.
 */
export async function ownConversations(
  tenantId: string,
  q: { userId: string; userHash: string; email?: string; emailHash?: string },
  origin?: string,
) {
  const tenant = await freshTenant(tenantId, origin);
  if (!verifyIdentity(tenant.identitySecret, q.userId, q.userHash))
    throw new Unauthorized('userHash does not match userId');
  const email = q.email?.toLowerCase() ?? null;
  // The route takes both or neither of email and emailHash.
  if (email !== null && !verifyIdentity(tenant.identitySecret, email, q.emailHash ?? '')) {
    throw new Unauthorized('emailHash does not match email');
  }
  return { items: (await ofVerifiedUser(tenantId, q.userId, email)).map(listed) };
}

/**
 * The dashboard's customer panel, as stored: a verified visitor's conversations (`userId`), or the
 * customer of a verified address (`email`): its email threads, the verified visitors it was signed
 * for, and their conversations.
 */
export async function visitorConversations(tenantId: string, who: { userId: string } | { email: string }) {
  if ('userId' in who) return { items: await ofVerifiedUser(tenantId, who.userId) };
  const linked = await linkedTo(tenantId, [who.email.toLowerCase()], true);
  const users = [...new Set(linked.flatMap((c) => (c.channel === 'email' ? [] : [c.visitor!.userId!])))].slice(0, 5);
  return {
    items: newestFirst([
      linked,
      ...(await Promise.all(users.map((u) => conversationsRepo.ofVisitor(tenantId, u, VISITOR_CONVERSATIONS)))),
    ]),
  };
}

/**
 * The address a visitor leaves for the reply while the team is away: kept on the conversation's
 * visitor as typed, so unverified, whoever the visitor is.
 */
export function setContact(tenantId: string, conversationId: string, email: string, origin?: string) {
  return retrying(
    async () => {
      const conv = await widgetConversation(tenantId, conversationId, origin);
      // An email thread's address is its sender's: the widget may not send the team's replies elsewhere.
      if (conv.channel === 'email') throw new Conflict("this conversation is by email: its address is the sender's");
      const address = email.toLowerCase();
      const visitor: Visitor = conv.visitor
        ? {
            ...conv.visitor,
            email: address,
            emailVerified: conv.visitor.emailVerified && conv.visitor.email === address,
          }
        : { userId: null, name: null, email: address, verified: false, emailVerified: false };
      if (!sameValue(visitor, conv.visitor)) {
        await transact([
          conversationsRepo.tx.update(conv, { visitor, updatedAt: clock.iso() }, {}),
          customersRepo.tx.link(tenantId, address, conv.id),
        ]);
      }
      const { userId, name, verified, emailVerified } = visitor;
      return { visitor: { userId, name, email: address, verified, emailVerified } };
    },
    { attempts: 6, conflict: 'the conversation changed concurrently; try again' },
  );
}
