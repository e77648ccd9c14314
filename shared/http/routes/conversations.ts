import * as z from 'zod/mini';
import { IdParams, pageQuery } from '../schema.ts';
import { MESSAGE_ROLES } from '#shared/core/vocabulary.ts';
import { declareAdmin } from '../route.ts';
import { ConversationStatus, ConversationSummary, Page, Timestamp } from './common.ts';
import { Ticket } from './tickets.ts';



export const ListConversationsQuery = z.strictObject({ status: z.optional(ConversationStatus), ...pageQuery });

export const ConversationPage = Page(ConversationSummary);

export const MessageMetadata = z.object({
  intentDetected: z.string(), confidence: z.number().check(z.gte(0), z.lte(1)), entitiesExtracted: z.record(z.string(), z.string()),
  intentRanking: z.array(z.object({ intent: z.string(), confidence: z.number() })), ticketId: z.optional(z.string()),
});
export const AdminMessage = z.object({
  id: z.uuid(), role: z.enum(MESSAGE_ROLES), content: z.string(), createdAt: Timestamp,
  metadata: z.optional(MessageMetadata).check(z.meta({ description: 'assistant messages only' })),
});
export const ConversationDetail = z.object({
  conversation: z.extend(ConversationSummary, { latestTicketId: z.nullable(z.string()) }),
  messages: z.array(AdminMessage),
  tickets: z.array(Ticket),
});

export const listConversations = declareAdmin('GET', '/conversations', 'list-conversations', 'viewer', {
  table: 'read', query: ListConversationsQuery, response: ConversationPage, status: 200, summary: 'Conversations, newest first',
});

export const getConversation = declareAdmin('GET', '/conversations/{id}', 'get-conversation', 'viewer', {
  table: 'read', params: IdParams, status: 200, summary: 'A conversation with its messages and tickets',
  response: ConversationDetail,
});

export const routes = [listConversations, getConversation];
