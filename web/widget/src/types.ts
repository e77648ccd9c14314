// The chat API's shapes as the widget reads them, and the ways a call can fail.

export interface Source { articleId: string; title: string; url: string | null }
export interface Message {
  id: string;
  role: 'user' | 'assistant' | 'agent';
  content: string;
  createdAt: string;
  author?: { name: string };
  metadata?: { sources?: Source[]; ticketId?: string; ticketNumber?: number };
}
export interface WidgetInfo {
  name: string;
  greeting: string;
  theme: { color: string; position: 'right' | 'left'; title: string };
  liveUrl: string | null;
}
export interface Reply {
  conversationId: string;
  message: Message | null;
  metadata?: { sources?: Source[]; ticketId?: string; ticketNumber?: number };
  handledBy?: 'agent';
}
export interface Escalation {
  ticketId: string; ticketNumber: number | null; message: string;
  online: boolean; nextOpenAt: string | null; emailRequested: boolean;
}
export interface Conversation {
  conversation: { id: string; status: 'active' | 'escalated' | 'closed' };
  messages: Message[];
}
/** `blocks`: the body as plain text, one paragraph, heading or list item each (the service's Markdown reduction). */
export interface Article { id: string; title: string; body: string; url: string | null; updatedAt: string; blocks: string[] }

/** What the customer is told when a call fails. */
export type Failure =
  | 'offline' // the browser says it has no network
  | 'unreachable' // no answer at all (server down, blocked)
  | 'rate-limited'
  | 'failing' // 5xx
  | 'origin' // 403 ORIGIN_NOT_ALLOWED
  | 'key' // 401
  | 'not-found'
  | 'closed' // 409 CONVERSATION_CLOSED
  | 'refused'; // any other 4xx
