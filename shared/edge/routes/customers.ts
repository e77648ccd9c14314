import * as z from 'zod/mini';
import { declareAdmin } from '../route.ts';
import { email, text } from '../schema.ts';
import { Timestamp, Visitor } from './common.ts';

// A customer's data: export (GDPR articles 15 and 20) and erasure (article 17). The customer is
// named in the body, not the URL, so that no address lands in access logs.

export const CustomerLookup = z
  .strictObject({
    email: z.optional(email().check(z.describe('the address the customer gave (verified or typed)'))),
    userId: z.optional(text(1, 200).check(z.describe("the site's user id, as verified with the identity secret"))),
  })
  .check(z.refine((b) => (b.email === undefined) !== (b.userId === undefined), 'give exactly one of email and userId'));

const Reference = z
  .string()
  .check(z.describe('an opaque id of this request (`cus_` + ULID), the one the audit entry names'));

export const CustomerExport = z.looseObject({
  reference: Reference,
  exportedAt: Timestamp,
  visitors: z.array(Visitor),
  emailAddresses: z.array(z.string()),
  conversations: z.array(
    z.looseObject({ id: z.string(), messages: z.array(z.unknown()), tickets: z.array(z.unknown()) }),
  ),
  ratings: z.array(z.unknown()),
  examples: z.array(z.unknown()),
});
export const CustomerErasure = z.object({
  reference: Reference,
  erasedAt: Timestamp,
  conversations: z.number().check(z.describe('conversations whose personal data was removed (0 when erased already)')),
  examples: z.number().check(z.describe('taught examples made from their messages, taken back')),
  ticketsClosed: z
    .number()
    .check(
      z.describe('their tickets that were not closed, closed now (each audited as a `ticket.updated` by the caller)'),
    ),
});

export const exportCustomer = declareAdmin('POST', '/customers/export', 'export-customer', 'admin', {
  table: 'write',
  body: CustomerLookup,
  response: CustomerExport,
  status: 200,
  summary: 'Everything held about one customer',
  description:
    'One JSON document: visitor facts, conversations with their messages, tickets with their history, ratings, examples ' +
    'taught from their messages, email addresses. Found by `email` (any conversation where it was given, verified or typed) or ' +
    'verified `userId`. Audited (`privacy`, `customer.exported`) under an opaque reference, without personal data.',
});

export const eraseCustomer = declareAdmin('POST', '/customers/erase', 'erase-customer', 'admin', {
  table: 'write',
  eraseObjects: true,
  body: CustomerLookup,
  response: CustomerErasure,
  status: 200,
  summary: "Erase one customer's personal data",
  description:
    "Message text, visitor facts, contact email, ticket reasons, ratings' comments, unanswered entries, event and webhook " +
    "delivery copies, and the email channel's subjects, addresses, stored originals, attachments and suppressions are removed; examples taught from their messages are taken back; their live sockets close; their tickets that are not closed are closed (audited), so no work waits on nobody. Conversations " +
    'and tickets stay as shells (ids, statuses, times, counts), so lists and `/stats` are unchanged. Erasing again is harmless. ' +
    'Audited (`privacy`, `customer.erased`) with who and when and an opaque reference, no personal data.',
});

export const routes = [exportCustomer, eraseCustomer];
