import { ulid } from 'ulid';
import type { Actor } from '#shared/core/vocabulary.ts';
import { auditRepo } from '#shared/data/audit.ts';
import { customersRepo, ERASED, type Holdings } from '#shared/data/customers.ts';
import { examplesRepo, publicExample } from '#shared/data/examples.ts';
import { integrationsRepo } from '#shared/data/integrations.ts';
import { clean } from '#shared/data/keys.ts';
import { transact } from '#shared/data/tx.ts';
import { asAudit } from '#shared/data/audit.ts';
import type { Conversation, Message, Visitor } from '#shared/data/conversations.ts';
import type { Ticket } from '#shared/data/tickets.ts';
import { deleteExample } from '#shared/domain/assistant/examples.ts';
import { linkedEmailThreads } from '#shared/domain/customers/customers.ts';
import { events } from '#shared/domain/events.ts';
import { eventsRepo } from '#shared/data/events.ts';
import { updateTicket } from '#shared/domain/handoff/tickets.ts';
import { emailSource } from './email.ts';
import type { PersonalSource } from './sources.ts';
import { clock } from '#shared/core/clock.ts';

// A customer's right of access and erasure (GDPR articles 15, 17, 20). The customer is found by the
// email address they gave or the user id the site verified; what is held about them is what
// shared/data/customers.ts lists, read from their conversations and never from the whole table.

export type CustomerLookup = { email: string } | { userId: string };

export const personalSources: PersonalSource[] = [emailSource];

/** The audit's name for a customer: random, so the entry says nothing about who it was. */
const reference = () => `cus_${ulid(clock.now())}`;

async function find(tenantId: string, q: CustomerLookup) {
  // A user id also finds the email threads linked to it (an address verified on both sides).
  const ids =
    'email' in q
      ? await customersRepo.conversationsOfEmail(tenantId, q.email)
      : (
          await Promise.all([
            customersRepo.conversationsOfUser(tenantId, q.userId),
            linkedEmailThreads(tenantId, q.userId),
          ])
        ).flat();
  const holdings = (await Promise.all([...new Set(ids)].map((id) => customersRepo.holdings(tenantId, id)))).filter(
    (h): h is Holdings => h !== null,
  );
  const visitors = holdings
    .map((h) => h.conversation.find((i) => i.sk === 'CONV')!.visitor as Visitor | undefined)
    .filter((v): v is Visitor => !!v);
  const emails = [
    ...new Set([
      ...('email' in q ? [q.email.toLowerCase()] : []),
      ...visitors.flatMap((v) => (v.email ? [v.email] : [])),
    ]),
  ];
  return { holdings, visitors, emails, conversationIds: holdings.map((h) => h.conversationId) };
}

function conversationOf(h: Holdings) {
  const c = clean<Conversation>(h.conversation.find((i) => i.sk === 'CONV')!);
  const messages = h.conversation
    .filter((i) => (i.sk as string).startsWith('MSG#'))
    .map((i) => clean<Message>(i))
    .map(({ id, role, content, createdAt, author, metadata }) => ({
      id,
      role,
      content,
      createdAt,
      ...(author ? { author } : {}),
      ...(metadata?.entitiesExtracted ? { entitiesExtracted: metadata.entitiesExtracted } : {}),
    }));
  const tickets = h.tickets.map((items) => {
    const t = clean<Ticket>(items.find((i) => i.sk === 'TICKET')!);
    return { ...t, history: items.filter((i) => i.sk !== 'TICKET').map(asAudit) };
  });
  return {
    id: c.id,
    status: c.status,
    createdAt: c.createdAt,
    updatedAt: c.updatedAt,
    visitor: c.visitor ?? null,
    rating: c.rating ?? null,
    labels: c.labels ?? [],
    messages,
    tickets,
  };
}

/** Everything held about one customer, as one JSON document; audited without naming them. */
export async function exportCustomer(tenantId: string, actor: Actor, q: CustomerLookup) {
  const found = await find(tenantId, q);
  const ids = new Set(found.conversationIds);
  const [examples, sources] = await Promise.all([
    ids.size ? examplesRepo.ofConversations(tenantId, ids) : Promise.resolve([]),
    Promise.all(personalSources.map(async (s) => [s.name, await s.export(tenantId, found)] as const)),
  ]);
  const conversations = found.holdings.map(conversationOf);
  const ref = reference();
  const exportedAt = clock.iso();
  await transact([
    auditRepo.tx.put(tenantId, {
      category: 'privacy',
      action: 'customer.exported',
      actor,
      target: { type: 'customer', id: ref },
      changes: { conversations: { from: null, to: conversations.length } },
      createdAt: exportedAt,
    }),
  ]);
  return {
    reference: ref,
    exportedAt,
    visitors: dedupe(found.visitors),
    emailAddresses: found.emails,
    conversations,
    ratings: conversations.flatMap((c) => (c.rating ? [{ conversationId: c.id, ...c.rating }] : [])),
    examples: examples.map(publicExample),
    ...Object.fromEntries(sources),
  };
}

const dedupe = (vs: Visitor[]) => [...new Map(vs.map((v) => [JSON.stringify(v), v])).values()];

/**
 * Removes the customer's personal data everywhere it is kept (see shared/data/customers.ts):
 * conversations, messages and tickets keep their shells (ids, statuses, times, counts) so lists and
 * /stats stay right; copies are deleted; examples made from their messages are taken back; their
 * sockets are closed. Erasing again finds nothing and changes nothing but the audit.
 */
export async function eraseCustomer(tenantId: string, actor: Actor, q: CustomerLookup) {
  const found = await find(tenantId, q);
  const ids = new Set(found.conversationIds);
  const now = clock.iso();
  let examples = 0;
  if (ids.size) {
    const taught = await examplesRepo.ofConversations(tenantId, ids);
    for (const e of taught) await deleteExample(tenantId, actor, e.id);
    if (taught.length) await auditRepo.redact(tenantId, 'nlu', new Set(taught.map((e) => e.id)), 'message', ERASED);
    examples = taught.length;
    const integrations = (await integrationsRepo.list(tenantId)).map((i) => i.id);
    const deliveries = await customersRepo.deliveriesOf(tenantId, integrations, [...ids]);
    const deliveriesOf = (id: string) => deliveries.filter((d) => (d.payload as string).includes(`"${id}"`));
    await Promise.all(
      found.holdings.map((h) => customersRepo.erase(tenantId, h, found.emails, deliveriesOf(h.conversationId), now)),
    );
  }
  await Promise.all(personalSources.map((s) => s.erase(tenantId, found)));
  // Nobody is left to answer: their tickets leave the team's queue, each audited as the eraser's close.
  const unclosed = found.holdings.flatMap((h) =>
    h.tickets.flatMap((p) => p.filter((i) => i.type === 'ticket' && i.status !== 'closed')),
  );
  for (const t of unclosed) await updateTicket(tenantId, actor, t.id as string, { status: 'closed' });
  const ref = reference();
  await transact([
    auditRepo.tx.put(tenantId, {
      category: 'privacy',
      action: 'customer.erased',
      actor,
      target: { type: 'customer', id: ref },
      changes: {
        conversations: { from: null, to: ids.size },
        examples: { from: null, to: examples },
        ticketsClosed: { from: null, to: unclosed.length },
      },
      createdAt: now,
    }),
    ...(ids.size ? [events.customerErased(tenantId, [...ids], now)] : []),
    // The indexer's pass removes the vectors of their messages: no text of the tenant needs them now.
    ...(ids.size ? [eventsRepo.tx.contentChanged(tenantId, 'erasure')] : []),
  ]);
  return { reference: ref, erasedAt: now, conversations: ids.size, examples, ticketsClosed: unclosed.length };
}
