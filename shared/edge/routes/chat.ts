import * as z from 'zod/mini';
import { MESSAGE_ROLES, WIDGET_POSITIONS } from '#shared/core/vocabulary.ts';
import { declareChat } from '../route.ts';
import { EmptyQuery, IdParams, text, uuid } from '../schema.ts';
import { ConversationStatus, Fraction, TicketId, PlainTimestamp } from './common.ts';

// The chat routes (widget-facing): request and response schemas, and their declarations.
export const SendMessageBody = z.strictObject({ conversationId: z.optional(uuid()), message: text(1, 2000) });
export const EscalateBody = z.strictObject({ conversationId: uuid(), reason: text(1, 500) });

export const IntentRankingEntry = z.object({ intent: z.string(), confidence: Fraction });
export const Source = z.object({ articleId: z.string(), title: z.string(), url: z.nullable(z.string()) });
export const MessageMetadata = z.object({
  intentDetected: z.string().check(z.describe('the answering intent\'s name, `knowledge_base` when an article answered, or `fallback` when neither reached its threshold')),
  confidence: Fraction,
  entitiesExtracted: z.record(z.string(), z.string()),
  intentRanking: z.array(IntentRankingEntry).check(z.maxLength(3)),
  ticketId: z.optional(TicketId).check(z.describe('present when the message escalated the conversation')),
  sources: z.optional(z.array(Source).check(z.maxLength(3))).check(z.describe(
    'the help articles of a `knowledge_base` answer, best first; `[]` on a fallback; absent on an intent\'s answer')),
});

export const ChatMessage = z.object({
  id: z.uuid(), role: z.enum(MESSAGE_ROLES), content: z.string(), createdAt: PlainTimestamp,
  author: z.optional(z.object({ name: z.string() })).check(z.describe('agent messages: the person who wrote it')),
});

export const SendMessageResponse = z.object({
  conversationId: z.uuid(),
  message: z.nullable(z.object({ id: z.uuid(), role: z.literal('assistant'), content: z.string(), createdAt: PlainTimestamp }))
    .check(z.describe('null while a person handles the conversation')),
  metadata: MessageMetadata,
  handledBy: z.optional(z.literal('agent')).check(z.describe('present when a person handles the conversation and the assistant stays silent')),
});

export const RatingBody = z.strictObject({
  score: z.number({ message: 'must be a whole number from 1 to 5' }).check(z.int('must be a whole number from 1 to 5'),
    z.gte(1, 'must be a whole number from 1 to 5'), z.lte(5, 'must be a whole number from 1 to 5')),
  comment: z.optional(text(1, 1000)),
});
export const RatingResponse = z.object({
  rating: z.object({ score: z.number().check(z.int()), comment: z.nullable(z.string()), createdAt: PlainTimestamp }),
});

export const WidgetConfig = z.object({
  name: z.string(), greeting: z.string(),
  theme: z.looseObject({ color: z.string(), position: z.enum(WIDGET_POSITIONS), title: z.string() }),
  liveUrl: z.nullable(z.string()).check(z.describe('the live channel: connect with `?widgetKey=...&conversationId=...`')),
});

export const ChatConversationResponse = z.object({
  conversation: z.object({ id: z.uuid(), tenantId: z.uuid(), status: ConversationStatus, createdAt: PlainTimestamp, updatedAt: PlainTimestamp }),
  messages: z.array(ChatMessage).check(z.describe('oldest first')),
});

export const ChatArticleResponse = z.object({
  article: z.object({ id: z.string(), title: z.string(), body: z.string().check(z.describe('Markdown')), url: z.nullable(z.string()), updatedAt: PlainTimestamp,
    blocks: z.array(z.string()).check(z.describe('The body as plain text, one entry per paragraph, heading, list item or table row: the Markdown reduced by the same parser as the answers, for clients that show it as text')),
  }),
});

export const EscalateResponse = z.object({ success: z.literal(true), ticketId: TicketId, message: z.string() });

export const sendMessage = declareChat('POST', '/message', 'send-message', {
  table: 'write', body: SendMessageBody, response: SendMessageResponse, status: 200, idempotent: true, rateLimited: true,
  conflicts: ['CONVERSATION_CLOSED', 'CONFLICT', 'IDEMPOTENCY_IN_PROGRESS'],
  summary: 'Send a user message and get the assistant reply',
  description: 'Without `conversationId` a new conversation (status `active`) is created. An unknown `conversationId`, or one of '
    + 'another tenant, is 404; a `closed` one is 409 `CONVERSATION_CLOSED`. The message is matched against the tenant\'s '
    + 'intents and published help articles together; each candidate\'s `confidence` is its calibrated probability of being the '
    + 'right answer (about 0.8 of the answers given at 0.8 are right), and the better of the best intent (if it reaches '
    + '`nlu.confidenceThreshold`, default 0.44) and the best article (if it reaches `knowledge.threshold`, default 0.42) answers. '
    + 'An article\'s reply is the passage that answers, then the article\'s title and url, with `intentDetected: "knowledge_base"` '
    + 'and `sources`; when neither reaches its threshold `intentDetected` is `fallback` and the reply is the tenant\'s fallback message. An intent with action '
    + '`escalate` escalates the conversation and `metadata.ticketId` is present. A message without `conversationId` opens a new '
    + 'conversation: at most 60 a minute per widget key from one source address (settings `widget.newConversationsPerMinute`, '
    + '1 to 10,000, for a site behind one shared address) and 1,000 a minute per widget key in all (429 with `Retry-After`, the '
    + 'seconds until the minute ends). At most 30 messages a minute per conversation '
    + '(429 with `Retry-After`) and 1,000 user messages per conversation (409 `CONFLICT`). While a person handles the '
    + 'conversation (its latest ticket is `in_progress`) the assistant stays silent: the message is stored and classified, and '
    + 'the answer is `message: null` with `handledBy: "agent"`.',
});

export const getChatConversation = declareChat('GET', '/conversations/{id}', 'get-conversation', {
  table: 'read', params: IdParams, response: ChatConversationResponse, status: 200,
  summary: 'A conversation and its messages, oldest first',
  description: 'Another tenant\'s conversation id is 404.',
});

export const escalate = declareChat('POST', '/escalate', 'escalate', {
  table: 'write', body: EscalateBody, response: EscalateResponse, status: 200, idempotent: true, rateLimited: true,
  conflicts: ['CONVERSATION_CLOSED', 'IDEMPOTENCY_IN_PROGRESS'],
  summary: 'Escalate a conversation to a human agent',
  description: 'Creates a ticket (status `open`, the tenant\'s default priority) unless the conversation already has one that is '
    + 'neither `resolved` nor `closed`, in which case the same `ticketId` is returned and nothing is created. The reply text is '
    + 'also appended to the conversation as an assistant message. At most 30 escalations that open a ticket a minute from one '
    + 'source address per widget key (429 with `Retry-After`).',
});

export const getWidget = declareChat('GET', '/widget', 'get-widget', {
  table: 'read', query: EmptyQuery, response: WidgetConfig, status: 200,
  summary: 'What the widget shows before the first message',
  description: 'The tenant\'s name, greeting and `widget.theme` (defaults: colour `#2563eb`, position `right`, title the tenant '
    + 'name), and the live channel\'s URL.',
});

export const rateConversation = declareChat('POST', '/conversations/{id}/rating', 'rate-conversation', {
  table: 'write', params: IdParams, body: RatingBody, response: RatingResponse, status: 200, conflicts: ['CONFLICT'], rateLimited: true,
  summary: 'Rate a conversation, 1 to 5',
  description: 'A later rating of the same conversation replaces the earlier one. Only a conversation that has had a ticket can '
    + 'be rated (409 `CONFLICT` otherwise). At most 5 ratings a minute per conversation (429 with `Retry-After`). The same score '
    + 'and comment again is answered with the rating as it stands and changes nothing: no `conversation.rated` event.',
});

export const getChatArticle = declareChat('GET', '/articles/{id}', 'get-article', {
  table: 'read', params: z.strictObject({ id: z.string() }), response: ChatArticleResponse, status: 200,
  summary: 'A published help article',
  description: 'The article that a reply\'s `sources` name. A draft, or an unknown id of any shape, is 404.',
});

export const routes = [sendMessage, getChatConversation, escalate, getWidget, rateConversation, getChatArticle];
