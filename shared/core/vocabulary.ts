// The service's words, each declared once: schemas, rules and the data layer derive from these.

export const ROLES = ['viewer', 'agent', 'admin', 'owner'] as const;
export type Role = (typeof ROLES)[number];
/** Roles are ordered lowest to highest; a role may do what every lower one may. */
export const roleAtLeast = (have: Role, need: Role): boolean => ROLES.indexOf(have) >= ROLES.indexOf(need);

export const TICKET_STATUSES = ['open', 'in_progress', 'waiting', 'resolved', 'closed'] as const;
export type TicketStatus = (typeof TICKET_STATUSES)[number];
/** Where a ticket may go from each status: the state machine the service enforces and the dashboard offers. */
export const TICKET_MOVES: Readonly<Record<TicketStatus, readonly TicketStatus[]>> = {
  open: ['in_progress', 'waiting', 'resolved', 'closed'],
  in_progress: ['open', 'waiting', 'resolved', 'closed'],
  waiting: ['in_progress', 'resolved', 'closed'],
  resolved: ['open', 'closed'],
  closed: [],
};

export const PRIORITIES = ['low', 'medium', 'high', 'urgent'] as const;
export type Priority = (typeof PRIORITIES)[number];

export const CONVERSATION_STATUSES = ['active', 'escalated', 'closed'] as const;
export type ConversationStatus = (typeof CONVERSATION_STATUSES)[number];

/** `agent` is a person of the tenant's team answering in the conversation. */
export const MESSAGE_ROLES = ['user', 'assistant', 'agent'] as const;
export type MessageRole = (typeof MESSAGE_ROLES)[number];

export const AUDIT_CATEGORIES = [
  'auth',
  'ticket',
  'intent',
  'integration',
  'settings',
  'member',
  'knowledge',
  'nlu',
  'privacy',
] as const;
export type AuditCategory = (typeof AUDIT_CATEGORIES)[number];

export const ACTOR_TYPES = ['user', 'widget', 'system'] as const;
export interface Actor {
  type: (typeof ACTOR_TYPES)[number];
  id: string;
}

export const MEMBER_STATUSES = ['active', 'invited'] as const;
export type MemberStatus = (typeof MEMBER_STATUSES)[number];

/** `action`: the tenant's own endpoint that an intent calls to look something up (not a receiver of events). */
export const INTEGRATION_TYPES = ['webhook', 'slack', 'zendesk', 'email', 'action'] as const;
export type IntegrationType = (typeof INTEGRATION_TYPES)[number];

/** `disabled` receives nothing: set by an admin, or by the service after a 410 Gone or 5 days of failures. */
export const INTEGRATION_STATUSES = ['active', 'disabled'] as const;
export type IntegrationStatus = (typeof INTEGRATION_STATUSES)[number];

export const DELIVERY_STATUSES = ['pending', 'succeeded', 'failed'] as const;
export type DeliveryStatus = (typeof DELIVERY_STATUSES)[number];

/** `call`: the intent asks the tenant's `action` integration (its `integrationId`) before it answers. */
export const INTENT_ACTIONS = ['reply', 'escalate', 'call'] as const;
export type IntentAction = (typeof INTENT_ACTIONS)[number];

/** A draft article is never searched by the chat nor shown to the widget. */
export const ARTICLE_STATUSES = ['published', 'draft'] as const;
export type ArticleStatus = (typeof ARTICLE_STATUSES)[number];

/** Where the widget's launcher sits on the host page (`widget.theme.position`). */
export const WIDGET_POSITIONS = ['right', 'left'] as const;

/** What a taught example says should have answered: an intent, an article, or nothing. */
export const EXAMPLE_TARGETS = ['intent', 'article', 'none'] as const;
export type ExampleTarget = (typeof EXAMPLE_TARGETS)[number];

/** The assistant's words while the tenant has set none (`assistant.greeting`, `assistant.fallbackMessage`). */
export const ASSISTANT_DEFAULTS = {
  greeting: 'Hi! How can I help you today?',
  fallbackMessage: "Sorry, I didn't quite get that. Could you rephrase it, or ask to talk to a person?",
};

/**
 * The least confidence at which an unedited starter intent that gives way to articles answers,
 * whatever the tenant's `nlu.confidenceThreshold` below it (docs/API.md, "Starter content must be
 * surer"; chosen in docs/decisions/008-answer-policy-coverage.md (g)).
 */
export const STARTER_THRESHOLD = 0.6;

/** `intentDetected` of a reply taken from a help article. */
export const KNOWLEDGE_INTENT = 'knowledge_base';

/** `intentDetected` of the reply to a message sent with `handover: true` (the customer's reason for asking for a person). */
export const HANDOVER_INTENT = 'handover';

/** The user of an admin request: the token's subject and, when it carries one, its email. */
export interface User {
  sub: string;
  email: string | null;
}

/** What the event outbox records; each goes to the live channel and to integrations. */
export const EVENT_TYPES = [
  'conversation.created',
  'message.created',
  'conversation.escalated',
  'ticket.created',
  'ticket.updated',
  'conversation.rated',
  'email.received',
  'email.bounced',
  'action.failed',
] as const;
export type EventType = (typeof EVENT_TYPES)[number];
export interface DomainEvent<T = Record<string, unknown>> {
  id: string;
  type: EventType;
  timestamp: string;
  tenantId: string;
  data: T;
}
/** Signals the service sends itself through the outbox: never pushed to a socket nor delivered to an integration. */
/** `email.send`: an agent's reply in an email conversation, for the sender. `content.changed`: text the assistant answers from was written (intents, articles, examples, unanswered messages); the indexer embeds it. `customer.erased`: a customer's data was erased; their live sockets close. `invitation.send`: a member was invited; the sender emails the invitation. */
export const INTERNAL_EVENT_TYPES = [
  'widget_key.rotated',
  'content.changed',
  'email.send',
  'customer.erased',
  'invitation.send',
] as const;
export type InternalEventType = (typeof INTERNAL_EVENT_TYPES)[number];
/** What an outbox item carries: an event of the table above, or a signal for the service itself. */
export type OutboxEvent<T = Record<string, unknown>> =
  | DomainEvent<T>
  | (Omit<DomainEvent<T>, 'type'> & { type: InternalEventType });

/**
 * What a saved reply may say about the conversation it is sent in; the dashboard fills them in
 * before sending (a value it does not know becomes empty text). `visitor.firstName`: the first word
 * of the customer's name ("Hi Carl," for Carl Mendes).
 */
export const REPLY_PLACEHOLDERS = ['visitor.name', 'visitor.firstName', 'agent.name', 'ticket.number'] as const;
export type ReplyPlaceholder = (typeof REPLY_PLACEHOLDERS)[number];

/** Typing over the live channel: a typing side signals at most this often, the other shows it this long after the last signal. */
export const TYPING = { signalEverySeconds: 2, shownSeconds: 6 } as const;

/** Where a conversation came in; absent on a conversation means `widget`. */
/**
 * What a conversation needs, for the inbox: its latest ticket waits on the team (open, or in
 * progress with the customer's word last), on the customer (waiting, or the team's word last), or
 * is done (resolved or closed). A conversation the assistant handles alone has none.
 */
export const CONVERSATION_STAGES = ['waiting_for_us', 'waiting_for_customer', 'done'] as const;
export type ConversationStage = (typeof CONVERSATION_STAGES)[number];

export const CHANNELS = ['widget', 'email'] as const;
export type Channel = (typeof CHANNELS)[number];

/** An outgoing email's delivery, moved by the sender and by SES's events (delivery, bounce, complaint). */
/** `failed`: SES (or the local relay) refused the message itself when asked to send it; final, as `bounced` and `complained`. */
export const EMAIL_DELIVERY_STATUSES = ['sending', 'sent', 'delivered', 'bounced', 'complained', 'failed'] as const;
export type EmailDeliveryStatus = (typeof EMAIL_DELIVERY_STATUSES)[number];
