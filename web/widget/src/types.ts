import type { paths } from './schema';

// The chat API's shapes, generated from the OpenAPI document (schema.d.ts, written by
// `npm run typecheck` and the builds), and the ways a call can fail.

/** The 200 JSON body of a chat operation, e.g. `Ok<'/api/v1/chat/widget', 'get'>`. */
type Ok<P extends keyof paths, M extends keyof paths[P]> = paths[P][M] extends {
  responses: { 200: { content: { 'application/json': infer B } } };
}
  ? B
  : never;

export type WidgetInfo = Ok<'/api/v1/chat/widget', 'get'>;
export type Reply = Ok<'/api/v1/chat/message', 'post'>;
export type Conversation = Ok<'/api/v1/chat/conversations/{id}', 'get'>;
export type Escalation = Ok<'/api/v1/chat/escalate', 'post'>;
export type Rating = Ok<'/api/v1/chat/conversations/{id}/rating', 'post'>;
export type OwnConversations = Ok<'/api/v1/chat/conversations', 'get'>;
export type Contact = Ok<'/api/v1/chat/conversations/{id}/contact', 'post'>;
/** Who the customer is, as the site says (`SupportWidget.identify` or the tag's `data-user-*`). */
export interface Visitor {
  userId: string;
  name?: string;
  email?: string;
  userHash?: string;
  emailHash?: string;
}
/** `blocks`: the body as plain text, one paragraph, heading or list item each (the service's Markdown reduction). */
export type Article = Ok<'/api/v1/chat/articles/{id}', 'get'>['article'];
export type Source = NonNullable<Reply['metadata']['sources']>[number];
/** A knowledge answer's formatting in its article, by plain text (see views/rich.ts). */
export type TextFormat = NonNullable<Reply['metadata']['format']>;
/**
 * A message as the conversation lists it; one from a live `message.created` frame carries its
 * metadata too (the frames are not in the OpenAPI document).
 */
export type Message = Conversation['messages'][number] & { metadata?: { sources?: Source[]; format?: TextFormat } };

/** What the customer is told when a call fails. */
export type Failure =
  | 'offline' // the browser says it has no network
  | 'unreachable' // no answer at all (server down, blocked)
  | 'rate-limited'
  | 'failing' // 5xx
  | 'origin' // 403 ORIGIN_NOT_ALLOWED
  | 'key' // 401
  | 'identity' // 401 about the visitor: a hash that does not match, or none where the site requires one
  | 'sign-in' // the same, for a visitor the site did not sign in at all
  | 'not-found'
  | 'closed' // 409 CONVERSATION_CLOSED
  | 'refused'; // any other 4xx
