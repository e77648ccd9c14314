import * as z from 'zod/mini';
import { email, IdParams, pageQuery, shownName, text } from '../schema.ts';
import { CHANNELS, EMAIL_DELIVERY_STATUSES, MESSAGE_ROLES } from '#shared/core/vocabulary.ts';
import { LIMITS } from '#shared/domain/limits.ts';
import { declareAdmin } from '../route.ts';
import {
  ActionMetadata,
  ConversationStage,
  ConversationStatus,
  ConversationSummary,
  Page,
  Timestamp,
} from './common.ts';
import { Ticket } from './tickets.ts';

export const ListConversationsQuery = z.strictObject({
  status: z.optional(ConversationStatus),
  userId: z.optional(
    z
      .string()
      .check(
        z.minLength(1, 'must not be empty'),
        z.maxLength(200, 'must be at most 200 characters'),
        z.describe(
          "a verified visitor's user id: their conversations and the email threads linked to them (at most 50, one page)",
        ),
      ),
  ),
  email: z.optional(
    email().check(
      z.describe(
        'a verified address: the customer it names, its verified email threads and the verified visitors the site signed it for, with their conversations (at most 50, one page)',
      ),
    ),
  ),
  label: z.optional(
    shownName(1, 32).check(z.describe('only the conversations carrying this label (case and spacing folded)')),
  ),
  stage: z.optional(
    ConversationStage.check(
      z.describe(
        'only the conversations that need this: `waiting_for_us`, `waiting_for_customer` or `done` (a page may be shorter than `limit` while `nextCursor` goes on)',
      ),
    ),
  ),
  channel: z.optional(
    z
      .enum(CHANNELS)
      .check(
        z.describe(
          'only the conversations of this channel (a page may be shorter than `limit` while `nextCursor` goes on)',
        ),
      ),
  ),
  ...pageQuery,
});

export const ConversationPage = Page(ConversationSummary);

export const MessageMetadata = z.object({
  intentDetected: z.string(),
  confidence: z.number().check(z.gte(0), z.lte(1)),
  entitiesExtracted: z.record(z.string(), z.string()),
  intentRanking: z.array(z.object({ intent: z.string(), confidence: z.number() })),
  ticketId: z.optional(z.string()),
  action: z.optional(ActionMetadata),
  sources: z
    .optional(z.array(z.object({ articleId: z.string(), title: z.string(), url: z.nullable(z.string()) })))
    .check(
      z.meta({
        description:
          "the help articles of a `knowledge_base` answer, best first; `[]` on a fallback; absent on an intent's answer",
      }),
    ),
});
const Author = z.object({ id: z.string(), name: z.string() });
const Delivery = z.object({
  status: z.enum(EMAIL_DELIVERY_STATUSES),
  reason: z
    .optional(z.string())
    .check(z.describe('`failed` or `bounced` when sending was refused: what SES (or the relay) answered')),
});
export const AttachmentView = z.object({
  id: z.uuid(),
  name: z.string(),
  contentType: z.string(),
  size: z.number().check(z.int()),
  url: z
    .string()
    .check(z.describe('a short-lived link to the file (5 minutes); ask for the conversation again for a new one')),
});
export const AdminMessage = z.object({
  id: z.uuid(),
  role: z.enum(MESSAGE_ROLES),
  content: z.string(),
  createdAt: Timestamp,
  author: z.optional(Author).check(z.meta({ description: 'agent messages only' })),
  metadata: z.optional(MessageMetadata).check(z.meta({ description: 'assistant messages only' })),
  attachments: z.optional(z.array(AttachmentView)).check(z.meta({ description: 'email messages with files only' })),
  email: z
    .optional(
      z.object({
        from: z.string(),
        subject: z.string(),
        trimmed: z.boolean().check(z.describe('quoted history or a signature was cut from `content`')),
        automatic: z
          .boolean()
          .check(z.describe('sent by a machine (RFC 3834, lists, mailer-daemon): never answered automatically')),
        verified: z
          .boolean()
          .check(
            z.describe(
              "this message passed SPF, DKIM and DMARC; a message that did not is never shown in the customer's widget, even in a verified thread",
            ),
          ),
        verdicts: z
          .nullable(z.object({ spf: z.string(), dkim: z.string(), dmarc: z.string() }))
          .check(
            z.describe(
              "the receiving service's verdicts on this message (`pass`, `fail`, `gray`...); null for messages stored before they were kept",
            ),
          ),
        originalUrl: z
          .nullable(z.string())
          .check(z.describe('a short-lived link to the message as received (message/rfc822)')),
      }),
    )
    .check(z.meta({ description: 'inbound email messages only' })),
  delivery: z.optional(Delivery).check(z.meta({ description: 'messages sent by email only' })),
});
export const ConversationDetail = z.object({
  conversation: z.extend(ConversationSummary, { latestTicketId: z.nullable(z.string()) }),
  messages: z.array(AdminMessage),
  tickets: z.array(Ticket),
  replyTo: z
    .object({
      live: z.boolean().check(z.describe('the widget customer has the conversation open now (false for email)')),
      email: z
        .nullable(z.string())
        .check(
          z.describe(
            "the address an agent's reply is also emailed to: an email conversation's customer, " +
              'or the address a widget customer left for the reply while they are not connected; null when none',
          ),
        ),
    })
    .check(z.describe("where an agent's reply goes besides the conversation, as things stand now")),
});

export const listConversations = declareAdmin('GET', '/conversations', 'list-conversations', 'viewer', {
  table: 'read',
  query: ListConversationsQuery,
  response: ConversationPage,
  status: 200,
  summary: 'Conversations, by latest customer message',
  description:
    "Newest customer message first (`lastCustomerMessageAt`): an agent's reply or a ticket change does not move a " +
    'conversation. With `label`, by creation, newest first. With `userId`, the conversations of that verified visitor (unverified ones never join) and the email threads ' +
    'linked to them; with `email`, the customer that verified address names: its email threads whose sender passed SPF, DKIM and DMARC, ' +
    'and the verified visitors the site signed it for (`emailHash`) with their conversations. Both newest first, at most 50 in one page ' +
    '(`nextCursor` null); an unverified side links nothing.',
});

export const getConversation = declareAdmin('GET', '/conversations/{id}', 'get-conversation', 'viewer', {
  table: 'read',
  params: IdParams,
  status: 200,
  summary: 'A conversation with its messages and tickets',
  mailLinks: true,
  response: ConversationDetail,
});

export const AgentMessageBody = z.strictObject({ content: text(1, 5000) });
export const AgentMessageResponse = z.object({
  message: z.object({
    id: z.uuid(),
    role: z.literal('agent'),
    content: z.string(),
    createdAt: Timestamp,
    author: Author,
    delivery: z.optional(Delivery).check(
      z.meta({
        description:
          "the reply is also sent by email (an email conversation, or an away widget customer's address); `sending` until the sender has sent it",
      }),
    ),
  }),
});

export const postAgentMessage = declareAdmin('POST', '/conversations/{id}/messages', 'post-agent-message', 'agent', {
  table: 'write',
  params: IdParams,
  body: AgentMessageBody,
  response: AgentMessageResponse,
  status: 201,
  idempotent: true,
  conflicts: ['CONVERSATION_CLOSED', 'IDEMPOTENCY_IN_PROGRESS', 'EMAIL_SUPPRESSED'],
  summary: 'Answer the customer in the conversation',
  description:
    'The message is `role: "agent"` with the author\'s display name. The first agent message of the conversation\'s ' +
    'latest ticket sets its `firstResponseAt` and moves an `open` ticket to `in_progress` (audited); from then on the assistant ' +
    'stays silent. A `closed` conversation is 409 `CONVERSATION_CLOSED`. In an email conversation the reply is also sent by email ' +
    '(`delivery.status` starts at `sending`); to an address that bounced or complained it is 409 `EMAIL_SUPPRESSED` and nothing is written. ' +
    'In a widget conversation whose customer left an address for the reply and has no live socket on it now, the reply is also ' +
    "emailed there the same way, threaded (a reply address and the ticket number): the customer's answer by email continues the " +
    "conversation (a suppressed address is skipped, the reply still stands). `replyTo` of the conversation's detail says where it goes.",
});

export const PatchConversationBody = z.strictObject({
  labels: z.optional(
    z
      .array(shownName(1, 32))
      .check(
        z.maxLength(LIMITS.labelsPerConversation, `must have at most ${LIMITS.labelsPerConversation} labels`),
        z.describe(
          "the conversation's labels, replacing the ones it had; the same label twice (case folded) counts once",
        ),
      ),
  ),
});

export const patchConversation = declareAdmin('PATCH', '/conversations/{id}', 'patch-conversation', 'agent', {
  table: 'write',
  params: IdParams,
  body: PatchConversationBody,
  response: ConversationSummary,
  status: 200,
  conflicts: ['CONFLICT'],
  summary: 'Label a conversation',
  description:
    "`labels` replaces the conversation's labels (at most 10 of 1 to 32 characters). A label already used in the tenant " +
    'keeps its first spelling. A tenant uses at most 1,000 different labels at once (409 `CONFLICT` beyond).',
});

export const routes = [listConversations, getConversation, postAgentMessage, patchConversation];
