import * as z from 'zod/mini';
import { CHANNELS, MESSAGE_ROLES, TICKET_STATUSES, WIDGET_POSITIONS } from '#shared/core/vocabulary.ts';
import { DEFAULT_ARTICLE_THRESHOLD, DEFAULT_INTENT_THRESHOLD } from '#shared/nlu/index.ts';
import { declareChat } from '../route.ts';
import { EmptyQuery, IdParams, email, text, uuid } from '../schema.ts';
import { ActionMetadata, ConversationStatus, ConversationTitle, Fraction, TicketId, PlainTimestamp } from './common.ts';

// The chat routes (widget-facing): request and response schemas, and their declarations.
const UserId = text(1, 200);
const UserHash = z
  .string()
  .check(
    z.regex(/^[0-9a-fA-F]+$/, 'must be the hex HMAC-SHA256 of userId (64 hex characters)'),
    z.maxLength(128, 'must be the hex HMAC-SHA256 of userId (64 hex characters)'),
  );
export const VisitorBody = z
  .strictObject({
    userId: UserId.check(z.describe("the site's own id of its signed-in customer")),
    name: z.optional(text(1, 100)),
    email: z.optional(email()),
    userHash: z.optional(
      UserHash.check(
        z.describe(
          'lowercase hex HMAC-SHA256 of `userId` keyed by the identity secret; without it the facts are kept unverified',
        ),
      ),
    ),
    emailHash: z.optional(
      UserHash.check(
        z.describe(
          'lowercase hex HMAC-SHA256 of the lowercase `email` keyed by the identity secret, beside a valid `userHash`: the address is verified ' +
            '(`emailVerified`) and links the email threads from it whose sender passed SPF, DKIM and DMARC',
        ),
      ),
    ),
  })
  .check(
    z.refine((v) => v.emailHash === undefined || v.email !== undefined, {
      message: 'emailHash signs email: give both',
      path: ['emailHash'],
    }),
  );
export const SendMessageBody = z.strictObject({
  conversationId: z.optional(uuid()),
  message: text(1, 2000),
  visitor: z.optional(VisitorBody.check(z.describe('who the customer is; verified when `userHash` matches'))),
  handover: z.optional(
    z
      .boolean({ message: 'must be true or false' })
      .check(
        z.describe(
          'true: the message is why the customer asks for a person; the conversation is handed over at once (as POST /chat/escalate) and the reply is the handover alone',
        ),
      ),
  ),
});
export const EscalateBody = z.strictObject({ conversationId: uuid(), reason: text(1, 500) });

export const IntentRankingEntry = z.object({ intent: z.string(), confidence: Fraction });
export const Source = z.object({ articleId: z.string(), title: z.string(), url: z.nullable(z.string()) });
export const TextFormatSchema = z.object({
  strong: z.array(z.string()),
  emphasis: z.array(z.string()),
  links: z.array(z.object({ text: z.string(), url: z.string() })).check(z.describe('http and https links only')),
  listItems: z.array(z.string()),
});

export const MessageMetadata = z.object({
  intentDetected: z
    .string()
    .check(
      z.describe(
        "the answering intent's name, `knowledge_base` when an article answered, or `fallback` when neither reached its threshold",
      ),
    ),
  confidence: Fraction,
  entitiesExtracted: z.record(z.string(), z.string()),
  intentRanking: z.array(IntentRankingEntry).check(z.maxLength(3)),
  ticketId: z.optional(TicketId).check(z.describe('present when the message escalated the conversation')),
  action: z.optional(ActionMetadata),
  ticketNumber: z
    .optional(z.number().check(z.int()))
    .check(z.describe("the ticket's number, as the customer sees it (`#1042`)")),
  sources: z
    .optional(z.array(Source).check(z.maxLength(3)))
    .check(
      z.describe(
        "the help articles of a `knowledge_base` answer, best first; `[]` on a fallback; absent on an intent's answer",
      ),
    ),
  format: z
    .optional(TextFormatSchema)
    .check(
      z.describe(
        "a `knowledge_base` answer's formatting in its article, by plain text: the phrases of `content` that are bold, emphasised or " +
          'links there, and its lines that are list items; absent when none. `content` stays plain text; a client formats it with elements',
      ),
    ),
});

export const ChatMessage = z.object({
  id: z.uuid(),
  role: z.enum(MESSAGE_ROLES),
  content: z.string(),
  createdAt: PlainTimestamp,
  author: z.optional(z.object({ name: z.string() })).check(z.describe('agent messages: the person who wrote it')),
  sources: z
    .optional(z.array(Source))
    .check(z.describe('a knowledge answer: the help articles it came from, as `metadata.sources` of its reply')),
  format: z
    .optional(TextFormatSchema)
    .check(z.describe('a knowledge answer: its formatting, as `metadata.format` of its reply')),
});

export const SendMessageResponse = z.object({
  conversationId: z.uuid(),
  message: z
    .nullable(z.object({ id: z.uuid(), role: z.literal('assistant'), content: z.string(), createdAt: PlainTimestamp }))
    .check(z.describe('null while the conversation is with the team (see handledBy)')),
  metadata: MessageMetadata,
  handledBy: z
    .optional(z.literal('agent'))
    .check(
      z.describe(
        'present while the conversation is with the team (its latest ticket is open, in_progress or waiting): the assistant stays silent and `message` is null',
      ),
    ),
});

export const RatingBody = z.strictObject({
  score: z
    .number({ message: 'must be a whole number from 1 to 5' })
    .check(
      z.int('must be a whole number from 1 to 5'),
      z.gte(1, 'must be a whole number from 1 to 5'),
      z.lte(5, 'must be a whole number from 1 to 5'),
    ),
  comment: z.optional(text(1, 1000)),
});
export const RatingResponse = z.object({
  rating: z.object({ score: z.number().check(z.int()), comment: z.nullable(z.string()), createdAt: PlainTimestamp }),
});

export const WidgetConfig = z.object({
  name: z.string(),
  greeting: z.string(),
  theme: z.looseObject({ color: z.string(), position: z.enum(WIDGET_POSITIONS), title: z.string() }),
  liveUrl: z
    .nullable(z.string())
    .check(z.describe('the live channel: connect with `?widgetKey=...&conversationId=...`')),
  online: z.boolean().check(z.describe('within `businessHours` now (always true without them)')),
  nextOpenAt: z
    .nullable(PlainTimestamp)
    .check(z.describe('when the team is next in; null while open, or when no day has hours')),
  replyTime: z.nullable(z.string()).check(z.describe('`widget.replyTime`, e.g. "usually within an hour"')),
});

export const ChatConversationResponse = z.object({
  conversation: z.object({
    id: z.uuid(),
    tenantId: z.uuid(),
    status: ConversationStatus,
    createdAt: PlainTimestamp,
    updatedAt: PlainTimestamp,
    channel: z.enum(CHANNELS).check(z.describe('`email`: a linked email thread, read here and answered by email')),
  }),
  ticket: z
    .nullable(
      z.object({
        number: z
          .nullable(z.number().check(z.int()))
          .check(z.describe('what the customer sees (`#1042`); null only for a ticket made before numbering')),
        status: z.enum(TICKET_STATUSES),
      }),
    )
    .check(z.describe("the conversation's latest ticket, as the customer sees it; null before any escalation")),
  messages: z.array(ChatMessage).check(z.describe('oldest first')),
});

export const ChatArticleResponse = z.object({
  article: z.object({
    id: z.string(),
    title: z.string(),
    body: z.string().check(z.describe('Markdown')),
    url: z.nullable(z.string()),
    updatedAt: PlainTimestamp,
    blocks: z
      .array(z.string())
      .check(
        z.describe(
          'The body as plain text, one entry per paragraph, heading, list item or table row: the Markdown reduced by the same parser as the answers, for clients that show it as text',
        ),
      ),
  }),
});

export const EscalateResponse = z.object({
  success: z.literal(true),
  ticketId: TicketId,
  ticketNumber: z
    .nullable(z.number().check(z.int()))
    .check(z.describe('what the customer sees (`#1042`); null only for a ticket made before numbering')),
  message: z.string().check(z.describe('names the ticket number; while the team is away, when it is back')),
  online: z.boolean(),
  nextOpenAt: z.nullable(PlainTimestamp),
  emailRequested: z
    .boolean()
    .check(
      z.describe('the team is away and the visitor left no email: ask for one (`POST /conversations/{id}/contact`)'),
    ),
});
export const OwnConversationsQuery = z
  .strictObject({
    userId: UserId,
    userHash: UserHash,
    email: z.optional(
      email().check(z.describe("the visitor's address, with `emailHash`: its verified email threads are listed too")),
    ),
    emailHash: z.optional(
      UserHash.check(z.describe('lowercase hex HMAC-SHA256 of the lowercase `email` keyed by the identity secret')),
    ),
  })
  .check(
    z.refine((q) => (q.email === undefined) === (q.emailHash === undefined), {
      message: 'email and emailHash go together: give both or neither',
      path: ['emailHash'],
    }),
  );
export const OwnConversations = z.object({
  items: z.array(
    z.object({
      id: z.uuid(),
      status: ConversationStatus,
      title: ConversationTitle,
      updatedAt: PlainTimestamp,
      channel: z
        .enum(CHANNELS)
        .check(z.describe('`email`: an email thread linked to the visitor, readable here and answered by email')),
    }),
  ),
});
export const ContactBody = z.strictObject({ email: email() });
export const ContactResponse = z.object({
  visitor: z.object({
    userId: z.nullable(z.string()),
    name: z.nullable(z.string()),
    email: z.string(),
    verified: z.boolean(),
    emailVerified: z.literal(false),
  }),
});

export const sendMessage = declareChat('POST', '/message', 'send-message', {
  // kms: an intent with action `call` signs its request with its action's secret.
  table: 'write',
  kms: true,
  body: SendMessageBody,
  response: SendMessageResponse,
  status: 200,
  idempotent: true,
  rateLimited: true,
  encoder: true,
  conflicts: ['CONVERSATION_CLOSED', 'CONFLICT', 'IDEMPOTENCY_IN_PROGRESS'],
  summary: 'Send a user message and get the assistant reply',
  description:
    'Without `conversationId` a new conversation (status `active`) is created. An unknown `conversationId`, or one of ' +
    "another tenant, is 404; a `closed` one is 409 `CONVERSATION_CLOSED`. The message is matched against the tenant's " +
    "intents and published help articles together; each candidate's `confidence` is its calibrated probability of being the " +
    'right answer (about 0.8 of the answers given at 0.8 are right), and the better of the best intent (if it reaches ' +
    `\`nlu.confidenceThreshold\`, default ${DEFAULT_INTENT_THRESHOLD}) and the best article (if it reaches \`knowledge.threshold\`, default ${DEFAULT_ARTICLE_THRESHOLD}) answers. ` +
    'An article\'s reply is the passage that answers, then the article\'s title and url, with `intentDetected: "knowledge_base"` ' +
    "and `sources`; when neither reaches its threshold `intentDetected` is `fallback` and the reply is the tenant's fallback message. An intent with action " +
    "`escalate` escalates the conversation and `metadata.ticketId` is present. An intent with action `call` asks the tenant's " +
    'action endpoint once its required entities are found (docs/ACTIONS.md): its answer (or the failure response) is the reply, ' +
    "`metadata.action` says how the call went, and the whole answer takes at most the action's `timeoutMs` + 300 ms. A message without `conversationId` opens a new " +
    'conversation: at most 60 a minute per widget key from one source address (settings `widget.newConversationsPerMinute`, ' +
    '1 to 10,000, for a site behind one shared address) and 1,000 a minute per widget key in all (429 with `Retry-After`, the ' +
    'seconds until the minute ends). At most 30 messages a minute per conversation ' +
    '(429 with `Retry-After`) and 1,000 user messages per conversation (409 `CONFLICT`). From the hand-over until the ticket is ' +
    "done (the conversation's latest ticket is `open`, `in_progress` or `waiting`) the assistant stays silent: the message is " +
    'stored and classified for the statistics (a `waiting` ticket goes back to `open`), and the answer is `message: null` with ' +
    '`handledBy: "agent"`. `visitor` names the customer: with a `userHash` that matches it is ' +
    'verified (one that does not is 401 `UNAUTHORIZED`), without one its facts are kept unverified; with `identity.required` a ' +
    "message without a valid hash is 401. A verified visitor's conversation continued by another verified user is 404. An email " +
    'conversation (listed to its verified customer) is 409 `CONFLICT`: it is answered by email.',
});

export const getChatConversation = declareChat('GET', '/conversations/{id}', 'get-conversation', {
  table: 'read',
  params: IdParams,
  response: ChatConversationResponse,
  status: 200,
  summary: 'A conversation and its messages, oldest first',
  description:
    "With `ticket`, its latest ticket's number and status (null before any escalation), so a client that reopens the " +
    "conversation can show the ticket at once. Another tenant's conversation id is 404.",
});

export const escalate = declareChat('POST', '/escalate', 'escalate', {
  table: 'write',
  body: EscalateBody,
  response: EscalateResponse,
  status: 200,
  idempotent: true,
  rateLimited: true,
  conflicts: ['CONVERSATION_CLOSED', 'CONFLICT', 'IDEMPOTENCY_IN_PROGRESS'],
  summary: 'Escalate a conversation to a human agent',
  description:
    "Creates a ticket (status `open`, the tenant's default priority) unless the conversation's latest ticket is " +
    'neither `resolved` nor `closed`, in which case its `ticketId` is returned and nothing is created. The reply text names ' +
    'the ticket number (`#1042`) and is also appended to the conversation as an assistant message. Outside `businessHours` ' +
    'the ticket is still opened and the text says the team is away; when it is back is `nextOpenAt`, for the client to say in ' +
    'the visitor\'s own time zone (the widget: "We\'re away — back tomorrow at 9:00 your time"). At most 30 escalations that open a ticket a minute ' +
    'from one source address per widget key (429 with `Retry-After`).',
});

export const getWidget = declareChat('GET', '/widget', 'get-widget', {
  table: 'read',
  query: EmptyQuery,
  response: WidgetConfig,
  status: 200,
  summary: 'What the widget shows before the first message',
  description:
    "The tenant's name, greeting and `widget.theme` (defaults: colour `#2563eb`, position `right`, title the tenant " +
    "name), the live channel's URL, and whether the team is in (`online`, `nextOpenAt`, `replyTime`).",
});

export const rateConversation = declareChat('POST', '/conversations/{id}/rating', 'rate-conversation', {
  table: 'write',
  params: IdParams,
  body: RatingBody,
  response: RatingResponse,
  status: 200,
  idempotent: true,
  conflicts: ['CONFLICT', 'IDEMPOTENCY_IN_PROGRESS'],
  rateLimited: true,
  summary: 'Rate a conversation, 1 to 5',
  description:
    'A later rating of the same conversation replaces the earlier one. Only a conversation that has had a ticket can ' +
    'be rated (409 `CONFLICT` otherwise). At most 5 ratings a minute per conversation (429 with `Retry-After`). The same score ' +
    'and comment again is answered with the rating as it stands and changes nothing: no `conversation.rated` event.',
});

export const getChatArticle = declareChat('GET', '/articles/{id}', 'get-article', {
  table: 'read',
  params: z.strictObject({ id: z.string() }),
  response: ChatArticleResponse,
  status: 200,
  summary: 'A published help article',
  description: "The article that a reply's `sources` name. A draft, or an unknown id of any shape, is 404.",
});

export const listOwnConversations = declareChat('GET', '/conversations', 'list-conversations', {
  table: 'read',
  query: OwnConversationsQuery,
  response: OwnConversations,
  status: 200,
  summary: "A verified visitor's conversations, on any device",
  description:
    "Newest first, at most 50. `userHash` is the lowercase hex HMAC-SHA256 of `userId` keyed by the tenant's identity " +
    'secret; one that does not match (or a tenant without a secret) is 401 `UNAUTHORIZED`. Conversations of unverified visitors ' +
    'never appear. Email threads join (`channel: "email"`) when their sender passed SPF, DKIM and DMARC and the site signed the ' +
    'same address for this visitor: `email` with `emailHash` here (both or neither, else 400; a wrong one is 401), or `visitor.emailHash` on ' +
    'an earlier message. They are read-only in the widget: a message or escalation to one is 409 `CONFLICT` (answer the email).',
});

export const setContact = declareChat('POST', '/conversations/{id}/contact', 'set-contact', {
  table: 'write',
  params: IdParams,
  body: ContactBody,
  response: ContactResponse,
  status: 200,
  conflicts: ['CONFLICT'],
  summary: 'Leave an email address for the reply',
  description:
    "Kept on the conversation's visitor as unverified (the customer typed it), replacing an earlier typed one. " +
    "An email conversation keeps its sender's address: 409 `CONFLICT`.",
});

export const routes = [
  sendMessage,
  getChatConversation,
  escalate,
  getWidget,
  rateConversation,
  getChatArticle,
  listOwnConversations,
  setContact,
];
