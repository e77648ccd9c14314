import * as z from 'zod/mini';
import { IdParams, pageQuery } from '../schema.ts';
import { Page, Timestamp } from './common.ts';
import { Ticket } from './tickets.ts';

export { IdParams as ConversationParams };
export const ConversationStatus = z.enum(['active', 'escalated', 'closed']);

export const ListConversationsQuery = z.strictObject({ status: z.optional(ConversationStatus), ...pageQuery });

export const ConversationSummary = z.object({
  id: z.uuid(), status: ConversationStatus, createdAt: Timestamp, updatedAt: Timestamp,
  messageCount: z.number().check(z.int()), lastMessagePreview: z.string(), lastIntent: z.nullable(z.string()),
});
export const ConversationPage = Page(ConversationSummary);

export const MessageMetadata = z.object({
  intentDetected: z.string(), confidence: z.number().check(z.gte(0), z.lte(1)), entitiesExtracted: z.record(z.string(), z.string()),
  intentRanking: z.array(z.object({ intent: z.string(), confidence: z.number() })), ticketId: z.optional(z.string()),
});
export const AdminMessage = z.object({
  id: z.uuid(), role: z.enum(['user', 'assistant']), content: z.string(), createdAt: Timestamp,
  metadata: z.optional(MessageMetadata).check(z.meta({ description: 'assistant messages only' })),
});
export const ConversationDetail = z.object({
  conversation: z.extend(ConversationSummary, { latestTicketId: z.nullable(z.string()) }),
  messages: z.array(AdminMessage),
  get tickets() { return z.array(Ticket); },
});
