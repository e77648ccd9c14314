import { Unauthorized } from '#shared/core/errors.ts';
import { conversationsRepo, type Conversation, type Visitor } from '#shared/data/conversations.ts';
import { customersRepo } from '#shared/data/customers.ts';
import { retrying, transact } from '#shared/data/tx.ts';
import { verifyIdentity } from '#shared/domain/tenants/identity.ts';
import { freshTenant, widgetConversation } from '#shared/domain/tenants/widget-auth.ts';
import { conversationTitle } from './visitors.ts';

/** How many of a visitor's conversations the widget and the dashboard's customer panel list. */
export const VISITOR_CONVERSATIONS = 50;

const listed = (c: Conversation) => ({ id: c.id, status: c.status, title: conversationTitle(c), updatedAt: c.updatedAt });

/** A verified visitor's conversations on any device, newest first; a hash that does not match is 401. */
export async function ownConversations(tenantId: string, q: { userId: string; userHash: string }, origin?: string) {
  const tenant = await freshTenant(tenantId, origin);
  if (!verifyIdentity(tenant.identitySecret, q.userId, q.userHash)) throw new Unauthorized('userHash does not match userId');
  const items = await conversationsRepo.ofVisitor(tenantId, q.userId, VISITOR_CONVERSATIONS);
  return { items: items.map(listed) };
}

/** The dashboard's customer panel: the conversations of the same verified visitor, as stored. */
export async function visitorConversations(tenantId: string, userId: string) {
  return { items: await conversationsRepo.ofVisitor(tenantId, userId, VISITOR_CONVERSATIONS) };
}

/**
 * The address a visitor leaves for the reply while the team is away: kept on the conversation's
 * visitor as typed, so unverified, whoever the visitor is.
 */
export function setContact(tenantId: string, conversationId: string, email: string, origin?: string) {
  return retrying(async () => {
    const conv = await widgetConversation(tenantId, conversationId, origin);
    const address = email.toLowerCase();
    const visitor: Visitor = conv.visitor
      ? { ...conv.visitor, email: address, emailVerified: conv.visitor.emailVerified && conv.visitor.email === address }
      : { userId: null, name: null, email: address, verified: false, emailVerified: false };
    if (JSON.stringify(visitor) !== JSON.stringify(conv.visitor)) {
      await transact([conversationsRepo.tx.update(conv, { visitor, updatedAt: new Date().toISOString() }, {}), customersRepo.tx.link(tenantId, address, conv.id)]);
    }
    const { userId, name, verified, emailVerified } = visitor;
    return { visitor: { userId, name, email: address, verified, emailVerified } };
  }, { attempts: 6, conflict: 'the conversation changed concurrently; try again' });
}
