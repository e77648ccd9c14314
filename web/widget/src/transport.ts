import { retryAfterSeconds } from './retry.ts';
import type {
  Article,
  Contact,
  Conversation,
  Escalation,
  Failure,
  OwnConversations,
  Rating,
  Reply,
  Visitor,
  WidgetInfo,
} from './types.ts';

// The transport: the chat API over fetch with the widget key, every failure sorted into what the
// customer should be told, with the wait the server asked for (Retry-After).

export class ApiError extends Error {
  constructor(
    readonly failure: Failure,
    readonly retryAfter: number | null = null,
    detail: string = failure,
  ) {
    super(detail);
  }
}

function failureOf(status: number, code: string | undefined, detail: string | undefined): Failure {
  if (status === 429) return 'rate-limited';
  if (status >= 500) return 'failing';
  // A 401 about the visitor (a hash that does not match, or a site that requires one) is not the key's.
  if (status === 401) return /visitor|userHash/.test(detail ?? '') ? 'identity' : 'key';
  if (code === 'ORIGIN_NOT_ALLOWED') return 'origin';
  if (status === 404) return 'not-found';
  if (code === 'CONVERSATION_CLOSED') return 'closed';
  return 'refused';
}

/** A random Idempotency-Key; crypto.randomUUID exists only in secure contexts. */
export function newKey(): string {
  const b = crypto.getRandomValues(new Uint8Array(16));
  return Array.from(b, (x) => x.toString(16).padStart(2, '0')).join('');
}

export type Api = ReturnType<typeof createApi>;

/** A copy of a request whose first is still running (409 IDEMPOTENCY_IN_PROGRESS) asks again after these waits. */
const IN_PROGRESS_WAITS_MS = [150, 300, 600, 1000, 1500, 2000, 3000];
const wait = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

export function createApi(base: string, widgetKey: string) {
  async function call<T>(method: string, path: string, body?: unknown, idempotencyKey?: string): Promise<T> {
    const headers: Record<string, string> = { 'x-widget-key': widgetKey };
    if (body !== undefined) headers['content-type'] = 'application/json';
    if (idempotencyKey) headers['idempotency-key'] = idempotencyKey;
    let res: Response;
    let data: (T & { code?: string; detail?: string }) | null;
    for (let attempt = 0; ; attempt++) {
      try {
        res = await fetch(`${base}/api/v1/chat${path}`, {
          method,
          headers,
          mode: 'cors',
          credentials: 'omit',
          cache: 'no-store',
          ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
        });
      } catch {
        throw new ApiError(navigator.onLine === false ? 'offline' : 'unreachable');
      }
      data = (await res.json().catch(() => null)) as (T & { code?: string; detail?: string }) | null;
      // The same action sent twice (a retry while the first was on its way): its answer is the first one's.
      if (!(res.status === 409 && data?.code === 'IDEMPOTENCY_IN_PROGRESS' && attempt < IN_PROGRESS_WAITS_MS.length))
        break;
      await wait(IN_PROGRESS_WAITS_MS[attempt]!);
    }
    if (!res.ok) {
      throw new ApiError(
        failureOf(res.status, data?.code, data?.detail),
        retryAfterSeconds(res.headers.get('retry-after')),
        data?.detail ?? String(res.status),
      );
    }
    if (data === null) throw new ApiError('failing');
    return data;
  }
  const id = (v: string) => encodeURIComponent(v);
  return {
    widget: () => call<WidgetInfo>('GET', '/widget'),
    /** `handover`: the message is why the customer asks for a person (the service hands over at once, nothing else answers it). */
    send: (message: string, conversationId: string | null, visitor: Visitor | null, key: string, handover = false) =>
      call<Reply>(
        'POST',
        '/message',
        {
          ...(conversationId ? { conversationId } : {}),
          message,
          ...(visitor ? { visitor } : {}),
          ...(handover ? { handover } : {}),
        },
        key,
      ),
    /** A verified visitor's conversations, newest first. */
    mine: (v: Visitor & { userHash: string }) =>
      call<OwnConversations>(
        'GET',
        `/conversations?userId=${id(v.userId)}&userHash=${id(v.userHash)}${v.email && v.emailHash ? `&email=${id(v.email)}&emailHash=${id(v.emailHash)}` : ''}`,
      ),
    contact: (conversationId: string, email: string) =>
      call<Contact>('POST', `/conversations/${id(conversationId)}/contact`, { email }),
    conversation: (conversationId: string) => call<Conversation>('GET', `/conversations/${id(conversationId)}`),
    escalate: (conversationId: string, reason: string, key: string) =>
      call<Escalation>('POST', '/escalate', { conversationId, reason }, key),
    rate: (conversationId: string, score: number, comment: string, key: string) =>
      call<Rating>(
        'POST',
        `/conversations/${id(conversationId)}/rating`,
        comment ? { score, comment } : { score },
        key,
      ),
    article: (articleId: string) => call<{ article: Article }>('GET', `/articles/${id(articleId)}`),
  };
}
