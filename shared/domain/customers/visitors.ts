import { NotFound, Unauthorized } from '#shared/core/errors.ts';
import type { Conversation, Visitor } from '#shared/data/conversations.ts';
import type { Tenant } from '#shared/data/tenants.ts';
import { sameValue } from '#shared/domain/audit-value.ts';
import { identityRequired, verifyIdentity } from '#shared/domain/tenants/identity.ts';

// Who a conversation's customer is. A visitor the site signed (userId + userHash) is verified; the
// facts of one it did not sign are kept, marked unverified, and never link conversations. Its
// address is verified (`emailVerified`) only when the site signed the address too (`emailHash`).

export interface VisitorInput {
  userId: string;
  name?: string | undefined;
  email?: string | undefined;
  userHash?: string | undefined;
  emailHash?: string | undefined;
}

/**
 * The visitor a chat request speaks for. A hash that does not match (or a tenant without a secret)
 * is refused, never quietly downgraded; with `identity.required` a request without a valid hash is too.
 */
export function visitorOf(
  tenant: Pick<Tenant, 'config' | 'identitySecret'>,
  input: VisitorInput | undefined,
): Visitor | null {
  const required = identityRequired(tenant.config ?? {});
  if (!input) {
    if (required)
      throw new Unauthorized('this site requires a verified visitor: send visitor.userId and visitor.userHash');
    return null;
  }
  if (input.userHash === undefined && required)
    throw new Unauthorized('this site requires a verified visitor: visitor.userHash is missing');
  const verified = input.userHash !== undefined;
  if (verified && !verifyIdentity(tenant.identitySecret, input.userId, input.userHash!)) {
    throw new Unauthorized('visitor.userHash does not match visitor.userId');
  }
  const email = input.email?.toLowerCase() ?? null;
  // The id's signature does not cover the address (a signed-in visitor could type any): only the
  // address's own signature verifies it, and only a verified address links email threads.
  if (
    input.emailHash !== undefined &&
    !(email && verified && verifyIdentity(tenant.identitySecret, email, input.emailHash))
  ) {
    throw new Unauthorized('visitor.emailHash does not match visitor.email (it needs visitor.userHash too)');
  }
  return {
    userId: input.userId,
    name: input.name ?? null,
    email,
    verified,
    emailVerified: input.emailHash !== undefined,
  };
}

const same = (a: Visitor | undefined, b: Visitor) => sameValue(a, b);

/**
 * The conversation's visitor after a request that speaks for `v`, or undefined when it stays as
 * it is. A verified visitor's conversation is theirs: another verified user gets 404 (as if it did
 * not exist), and unverified facts never overwrite verified ones. A verified visitor signing in
 * during an anonymous or unverified conversation takes it over.
 */
export function nextVisitor(current: Visitor | undefined, v: Visitor | null): Visitor | undefined {
  if (!v) return undefined;
  if (current?.verified) {
    if (!v.verified) return undefined;
    if (v.userId !== current.userId) throw new NotFound('conversation');
    const next = {
      ...v,
      name: v.name ?? current.name,
      email: v.email ?? current.email,
      emailVerified: v.email ? v.emailVerified : current.emailVerified,
    };
    return same(current, next) ? undefined : next;
  }
  const email = v.email ?? current?.email ?? null;
  const next = { ...v, email, emailVerified: v.email !== null && v.emailVerified };
  return same(current, next) ? undefined : next;
}

/** A short number from the conversation's id, so that anonymous conversations read apart. */
const shortNumber = (id: string) => Number.parseInt(id.replace(/-/g, '').slice(0, 8), 16) % 10_000;

/** An email's subject; else the visitor's name or email, else "Visitor" and a short number; never a message. */
export const conversationTitle = (c: Pick<Conversation, 'id' | 'visitor' | 'subject'>) =>
  c.subject || c.visitor?.name || c.visitor?.email || `Visitor ${shortNumber(c.id)}`;

/** The visitor as the admin API shows it (`emailVerified` says whether the address came signed). */
export const visitorView = (c: Pick<Conversation, 'visitor'>) =>
  c.visitor
    ? {
        userId: c.visitor.userId,
        name: c.visitor.name,
        email: c.visitor.email,
        verified: c.visitor.verified,
        emailVerified: c.visitor.emailVerified,
      }
    : null;
