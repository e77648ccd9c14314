import * as z from 'zod';
import { IdParams, pageQuery } from '../schema.ts';
import { Page, Timestamp } from './common.ts';
import { Ticket } from './tickets.ts';

export { IdParams as ConversationParams };
export const ConversationStatus = z.enum(['active', 'escalated', 'closed']);

export const ListConversationsQuery = z.strictObject({ status: ConversationStatus.optional(), ...pageQuery });

export const ConversationSummary = z.object({
  id: z.uuid(), status: ConversationStatus, createdAt: Timestamp, updatedAt: Timestamp,
  messageCount: z.number().int(), lastMessagePreview: z.string(), lastIntent: z.string().nullable(),
});
export const ConversationPage = Page(ConversationSummary);

export const MessageMetadata = z.object({
  intentDetected: z.string(), confidence: z.number().min(0).max(1), entitiesExtracted: z.record(z.string(), z.string()),
  intentRanking: z.array(z.object({ intent: z.string(), confidence: z.number() })), ticketId: z.string().optional(),
});
export const AdminMessage = z.object({
  id: z.uuid(), role: z.enum(['user', 'assistant']), content: z.string(), createdAt: Timestamp,
  metadata: MessageMetadata.optional().meta({ description: 'assistant messages only' }),
});
export const ConversationDetail = z.object({
  conversation: ConversationSummary.extend({ latestTicketId: z.string().nullable() }),
  messages: z.array(AdminMessage),
  get tickets() { return z.array(Ticket); },
});
