import * as z from 'zod/mini';
import { CHANNELS, CONVERSATION_STAGES, CONVERSATION_STATUSES, TICKET_STATUSES } from '#shared/core/vocabulary.ts';

// Schema pieces that several route areas share (mostly for the OpenAPI document).
export const Page = <T extends z.ZodMiniType>(item: T) =>
  z.object({
    items: z.array(item),
    nextCursor: z.nullable(z.string()).check(z.meta({ description: 'opaque; pass back as `cursor`' })),
  });
export const Timestamp = z.iso.datetime({ precision: 3 }).check(z.meta({ example: '2026-11-22T10:15:30.123Z' }));
/** A timestamp without the example, where the document has always shown none. */
export const PlainTimestamp = z.iso.datetime({ precision: 3 });
export const Fraction = z.number().check(z.gte(0), z.lte(1));
/** `metadata.action` of an answer whose intent called its action (docs/ACTIONS.md). */
export const ActionMetadata = z
  .object({
    integrationId: z.string(),
    status: z
      .enum(['ok', 'failed', 'timeout', 'skipped'])
      .check(
        z.describe(
          '`ok`: the endpoint answered and its answer was shown; `failed`: an error status, a redirect, an answer that is not the documented JSON ' +
            'or is over 16 KB, or a placeholder with no value; `timeout`: no answer within `timeoutMs`; `skipped`: not called (the circuit breaker ' +
            'after 5 failures in a row, for 60 s, or a disabled integration)',
        ),
      ),
    latencyMs: z.number().check(z.int(), z.gte(0)),
  })
  .check(z.describe('present when the answering intent has `action: "call"`'));
/** `tkt_` + a 26-character ULID (Crockford base32). */
export const TicketId = z
  .string()
  .check(z.regex(/^tkt_[0-9A-HJKMNP-TV-Z]{26}$/, 'must be a ticket id (tkt_ and a 26-character ULID)'));
export const ConversationStatus = z.enum(CONVERSATION_STATUSES);
export const ConversationStage = z.enum(CONVERSATION_STAGES);

export const Visitor = z.object({
  userId: z.nullable(z.string()).check(z.describe("the site's own user id; null for a visitor who only left an email")),
  name: z.nullable(z.string()),
  email: z.nullable(z.string()),
  verified: z
    .boolean()
    .check(
      z.describe(
        'the site signed `userId` with the identity secret; unverified facts are shown as such and link nothing',
      ),
    ),
  emailVerified: z
    .boolean()
    .check(z.describe('the email came signed with a verified visitor; false for an address the customer typed')),
});
/** The visitor's name or email, else "Visitor" and a short number from the conversation id. */
export const ConversationTitle = z
  .string()
  .check(z.describe('the visitor\'s name or email, else "Visitor" and a short number; never a message'));

export const Rating = z.object({
  score: z.number().check(z.int(), z.gte(1), z.lte(5)),
  comment: z
    .nullable(z.string())
    .check(z.describe('what the customer wrote with the score; null when nothing (or erased)')),
  createdAt: Timestamp,
});

export const ConversationSummary = z.object({
  id: z.uuid(),
  title: ConversationTitle,
  status: ConversationStatus,
  createdAt: Timestamp,
  updatedAt: Timestamp,
  messageCount: z.number().check(z.int()),
  lastMessagePreview: z.string(),
  lastIntent: z.nullable(z.string()),
  visitor: z.nullable(Visitor).check(z.describe('null for an anonymous visitor')),
  labels: z.array(z.string()).check(z.describe("the team's labels, as first spelled in the tenant")),
  lastCustomerMessageAt: Timestamp.check(
    z.describe('the latest customer message (lists are ordered by it, newest first)'),
  ),
  channel: z.enum(CHANNELS).check(z.describe('where the conversation came in')),
  subject: z
    .nullable(z.string())
    .check(z.describe("email conversations: the first message's subject (also the title); null for the widget")),
  rating: z
    .nullable(Rating)
    .check(z.describe("the customer's rating of the conversation (a later one replaces it); null when not rated")),
  ticket: z
    .nullable(
      z.object({
        id: TicketId,
        number: z.nullable(z.number().check(z.int())),
        status: z.enum(TICKET_STATUSES),
        assigneeId: z.nullable(z.string()).check(z.describe('the member it is assigned to (their user id), or null')),
      }),
    )
    .check(z.describe("the conversation's latest ticket, as the inbox shows it; null when it never had one")),
  stage: z
    .nullable(ConversationStage)
    .check(
      z.describe(
        "what it needs: `waiting_for_us` (its latest ticket is open, or in progress with the customer's word last), `waiting_for_customer` " +
          "(the ticket is `waiting`, or the team's word is last), `done` (resolved or closed); null while the assistant handles it alone",
      ),
    ),
});
