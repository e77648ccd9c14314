import * as z from 'zod/mini';
import { OnboardBody } from './auth.ts';
import { EscalateBody, SendMessageBody } from './chat.ts';
import { IdParams, EmptyQuery } from '../schema.ts';
import { AuditPage, ListAuditQuery } from './audit.ts';
import { ConversationDetail, ConversationPage, ConversationParams, ListConversationsQuery } from './conversations.ts';
import { Intent, IntentBody, IntentList } from './intents.ts';
import { Integration, IntegrationBody, IntegrationList, IntegrationParams } from './integrations.ts';
import { PutSettingsBody, Settings, WidgetKey } from './settings.ts';
import { InviteMemberBody, Member, MemberList, MemberParams, PatchMemberBody } from './members.ts';
import { Stats, StatsQuery } from './stats.ts';
import { ListTicketsQuery, PatchTicketBody, PatchTicketResponse, TicketDetail, TicketPage, TicketParams } from './tickets.ts';

// The OpenAPI registry: for each route table handler, the very schema objects its handler validates
// with (imported from shared/http/schemas/<area>.ts), its success status and a response schema.
// Response schemas that no area file exports are written here, from CONTRACT sections 2, 3 and 7.

export interface RouteDoc {
  params?: z.ZodMiniType;
  query?: z.ZodMiniType;
  body?: z.ZodMiniType;
  /** Absent for 204. */
  response?: z.ZodMiniType;
  summary: string;
  status: number;
  description?: string;
  /** Honours `Idempotency-Key` (the two chat POSTs). */
  idempotent?: boolean;
  /** The 409 codes this route may answer. */
  conflicts?: string[];
  /** 429 RATE_LIMITED beyond a per-conversation limit. */
  rateLimited?: boolean;
}

// ---- shared response shapes --------------------------------------------------------------------

const ts = () => z.iso.datetime({ precision: 3 });
const fraction = () => z.number().check(z.gte(0), z.lte(1));
const ticketId = () => z.string().check(z.regex(/^tkt_[0-9A-HJKMNP-TV-Z]{26}$/));

export const Role = z.enum(['viewer', 'agent', 'admin', 'owner']);
export const ConversationStatus = z.enum(['active', 'escalated', 'closed']);

export const TenantRef = z.object({ id: z.uuid(), name: z.string(), createdAt: ts() });

export const IntentRankingEntry = z.object({ intent: z.string(), confidence: fraction() });
export const MessageMetadata = z.object({
  intentDetected: z.string().check(z.describe('the detected intent name, or `fallback` below the confidence threshold')),
  confidence: fraction(),
  entitiesExtracted: z.record(z.string(), z.string()),
  intentRanking: z.array(IntentRankingEntry).check(z.maxLength(3)),
  ticketId: z.optional(ticketId()).check(z.describe('present when the message escalated the conversation')),
});

export const ChatMessage = z.object({
  id: z.uuid(), role: z.enum(['user', 'assistant']), content: z.string(), createdAt: ts(),
});

export const SendMessageResponse = z.object({
  conversationId: z.uuid(),
  message: z.object({ id: z.uuid(), role: z.literal('assistant'), content: z.string(), createdAt: ts() }),
  metadata: MessageMetadata,
});

export const ChatConversationResponse = z.object({
  conversation: z.object({ id: z.uuid(), tenantId: z.uuid(), status: ConversationStatus, createdAt: ts(), updatedAt: ts() }),
  messages: z.array(ChatMessage).check(z.describe('oldest first')),
});

export const EscalateResponse = z.object({ success: z.literal(true), ticketId: ticketId(), message: z.string() });

export const MeResponse = z.object({
  user: z.object({ sub: z.string(), email: z.nullable(z.string()) }),
  tenant: z.nullable(TenantRef),
  role: z.nullable(Role),
});

export const OnboardResponse = z.object({
  tenant: TenantRef, role: z.literal('owner'), widgetKey: z.string().check(z.regex(/^wk_/), z.describe('shown in full only here')),
});




// ---- the registry --------------------------------------------------------------------------------

export const registry: Record<string, RouteDoc> = {
  'chat/send-message': {
    body: SendMessageBody, response: SendMessageResponse, status: 200, idempotent: true, rateLimited: true,
    conflicts: ['CONVERSATION_CLOSED', 'CONFLICT', 'IDEMPOTENCY_IN_PROGRESS'],
    summary: 'Send a user message and get the assistant reply',
    description: 'Without `conversationId` a new conversation (status `active`) is created. An unknown `conversationId`, or one of '
      + 'another tenant, is 404; a `closed` one is 409 `CONVERSATION_CLOSED`. Below the tenant\'s `nlu.confidenceThreshold` '
      + '(default 0.5) `intentDetected` is `fallback` and the reply is the tenant\'s fallback message. An intent with action '
      + '`escalate` escalates the conversation and `metadata.ticketId` is present. At most 30 messages a minute per conversation '
      + '(429 with `Retry-After`) and 1,000 user messages per conversation (409 `CONFLICT`).',
  },
  'chat/get-conversation': {
    params: IdParams, response: ChatConversationResponse, status: 200,
    summary: 'A conversation and its messages, oldest first',
    description: 'Another tenant\'s conversation id is 404.',
  },
  'chat/escalate': {
    body: EscalateBody, response: EscalateResponse, status: 200, idempotent: true,
    conflicts: ['CONVERSATION_CLOSED', 'IDEMPOTENCY_IN_PROGRESS'],
    summary: 'Escalate a conversation to a human agent',
    description: 'Creates a ticket (status `open`, the tenant\'s default priority) unless the conversation already has one that is '
      + 'neither `resolved` nor `closed`, in which case the same `ticketId` is returned and nothing is created. The reply text is '
      + 'also appended to the conversation as an assistant message.',
  },

  'admin/get-me': {
    response: MeResponse, status: 200,
    summary: 'The caller, their tenant and role',
    description: '`tenant` and `role` are null before onboarding. An invited user (by the token\'s `email`) joins their tenant on this call.',
  },
  'admin/onboard': {
    body: OnboardBody, response: OnboardResponse, status: 201, conflicts: ['ALREADY_ONBOARDED'],
    summary: 'Create a tenant owned by the caller',
    description: 'The new tenant gets a widget key (shown in full only in this response) and a starter set of intents. '
      + 'A user already in a tenant: 409 `ALREADY_ONBOARDED`; two concurrent calls make one tenant.',
  },
  'admin/get-stats': {
    query: StatsQuery, response: Stats, status: 200,
    summary: 'KPIs of a period',
    description: '`from` and `to` are UTC days (YYYY-MM-DD), inclusive; default today and the 29 days before; at most 366 days. '
      + 'Read from per-day counters: the cost does not grow with the number of conversations.',
  },
  'admin/list-conversations': {
    query: ListConversationsQuery, response: ConversationPage, status: 200, summary: 'Conversations, newest first',
  },
  'admin/get-conversation': {
    params: ConversationParams, status: 200, summary: 'A conversation with its messages and tickets',
    response: ConversationDetail,
  },
  'admin/list-tickets': { query: ListTicketsQuery, response: TicketPage, status: 200, summary: 'Tickets, newest first' },
  'admin/get-ticket': {
    params: TicketParams, status: 200, summary: 'A ticket with its conversation and audit trail', response: TicketDetail,
  },
  'admin/patch-ticket': {
    params: TicketParams, body: PatchTicketBody, status: 200, response: PatchTicketResponse, conflicts: ['INVALID_TRANSITION'],
    summary: 'Change a ticket\'s status or priority',
    description: 'Transitions: open → in_progress, waiting, resolved, closed; in_progress → open, waiting, resolved, closed; '
      + 'waiting → in_progress, resolved, closed; resolved → open, closed; closed → none (409 `INVALID_TRANSITION`, priority too). '
      + 'Setting the current value again changes nothing. A request with one forbidden part changes nothing. '
      + 'An audit entry records each change.',
  },
  'admin/list-intents': { query: EmptyQuery, response: IntentList, status: 200, summary: 'Every intent of the tenant, with its hit count' },
  'admin/get-intent': { params: IdParams, status: 200, response: Intent, summary: 'An intent' },
  'admin/create-intent': {
    body: IntentBody, status: 201, response: Intent, conflicts: ['CONFLICT'], summary: 'Create an intent',
    description: 'A name already used in the tenant, or a 201st intent: 409 `CONFLICT`.',
  },
  'admin/update-intent': {
    params: IdParams, body: IntentBody, status: 200, response: Intent, conflicts: ['CONFLICT'], summary: 'Replace an intent',
    description: 'A full replacement; the next chat message already uses it.',
  },
  'admin/delete-intent': { params: IdParams, status: 204, summary: 'Delete an intent' },
  'admin/list-integrations': { query: EmptyQuery, response: IntegrationList, status: 200, summary: 'Every integration, credentials masked' },
  'admin/create-integration': {
    body: IntegrationBody, status: 201, response: Integration, summary: 'Create an integration',
    description: 'A webhook URL must be https and not point at localhost or a loopback, private, link-local or documentation address.',
  },
  'admin/update-integration': { params: IntegrationParams, body: IntegrationBody, status: 200, response: Integration, summary: 'Replace an integration' },
  'admin/delete-integration': { params: IntegrationParams, status: 204, summary: 'Delete an integration' },
  'admin/list-audit': { query: ListAuditQuery, response: AuditPage, status: 200, summary: 'Audit entries, newest first' },
  'admin/get-settings': { query: EmptyQuery, response: Settings, status: 200, summary: 'Tenant name, configuration and widget key preview' },
  'admin/put-settings': {
    body: PutSettingsBody, response: Settings, status: 200, summary: 'Change the tenant name or configuration',
    description: '`config` is merged as a JSON Merge Patch (RFC 7396): objects merge, `null` deletes a key, anything else replaces. '
      + 'At most 16 KiB as UTF-8 JSON.',
  },
  'admin/rotate-widget-key': {
    status: 201, response: WidgetKey, summary: 'Issue a new widget key',
    description: 'The old key stops working within 60 seconds.',
  },
  'admin/list-members': { query: EmptyQuery, response: MemberList, status: 200, summary: 'Members and invitations' },
  'admin/invite-member': {
    body: InviteMemberBody, status: 201, response: Member, summary: 'Invite a user by email',
    description: 'The user whose token carries that `email` joins with that role on their next `GET /auth/me`.',
  },
  'admin/patch-member': {
    params: MemberParams, body: PatchMemberBody, status: 200, response: Member, conflicts: ['CONFLICT'], summary: 'Change a member\'s role',
    description: 'The last owner cannot be demoted (409 `CONFLICT`).',
  },
  'admin/delete-member': {
    params: MemberParams, status: 204, conflicts: ['CONFLICT'], summary: 'Remove a member or revoke an invitation',
    description: 'The last owner cannot be removed (409 `CONFLICT`).',
  },

  'public/openapi': {
    status: 200, response: z.record(z.string(), z.unknown()), summary: 'This OpenAPI 3.1 document',
  },
};
