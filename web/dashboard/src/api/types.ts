import type { Ok, Query } from './client.ts';

// Names for the generated types that several screens use, and the lists of a union's values that
// a screen offers (a filter's options): each list is checked against the generated union, both
// ways, so a value added to or removed from the OpenAPI document fails `npm run typecheck`.

export type Me = Ok<'/api/v1/admin/auth/me', 'get'>;
export type Stats = Ok<'/api/v1/admin/stats', 'get'>;
export type Role = NonNullable<Me['role']>;
export type TicketStatus = Ok<'/api/v1/admin/tickets/{id}', 'get'>['ticket']['status'];
export type TicketPriority = Ok<'/api/v1/admin/tickets/{id}', 'get'>['ticket']['priority'];
export type ConversationStatus = Ok<'/api/v1/admin/conversations/{id}', 'get'>['conversation']['status'];
export type AuditCategory = NonNullable<Query<'/api/v1/admin/audit', 'get'>['category']>;
export type Article = Ok<'/api/v1/admin/articles/{id}', 'get'>;
export type ArticleStatus = Article['status'];
export type Integration = Ok<'/api/v1/admin/integrations', 'get'>['items'][number];
export type Delivery = Ok<'/api/v1/admin/integrations/{id}/deliveries', 'get'>['items'][number];
export type DeliveryStatus = Delivery['status'];
export type Parse = Ok<'/api/v1/admin/nlu/parse', 'post'>;

type Missing<T, A extends readonly unknown[]> = Exclude<T, A[number]>;
/**
 * Every value of the union `T`, in the order given: `allOf<Role>()(['viewer', ...])`. A value
 * missing from the list is a type error naming it; one the union lacks is a type error too.
 */
export const allOf =
  <T extends string>() =>
  <const A extends readonly T[]>(
    values: A & ([Missing<T, A>] extends [never] ? unknown : { missing: Missing<T, A> }),
  ): readonly T[] =>
    values;

export const TICKET_STATUSES = allOf<TicketStatus>()(['open', 'in_progress', 'waiting', 'resolved', 'closed']);
export const TICKET_PRIORITIES = allOf<TicketPriority>()(['low', 'medium', 'high', 'urgent']);
export const CONVERSATION_STATUSES = allOf<ConversationStatus>()(['active', 'escalated', 'closed']);
export const AUDIT_CATEGORIES = allOf<AuditCategory>()([
  'auth',
  'ticket',
  'intent',
  'integration',
  'settings',
  'member',
  'knowledge',
  'nlu',
  'privacy',
]);
export const ARTICLE_STATUSES = allOf<ArticleStatus>()(['published', 'draft']);
export const DELIVERY_STATUSES = allOf<DeliveryStatus>()(['pending', 'succeeded', 'failed']);
