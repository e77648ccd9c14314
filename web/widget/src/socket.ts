import { backoff } from './retry.ts';

// The live socket: one WebSocket per conversation, reconnected with exponential backoff. After
// every reconnect the widget re-reads the conversation, since events sent meanwhile are lost.

export interface LiveEvent {
  id: string;
  type: string;
  timestamp: string;
  tenantId: string;
  data: Record<string, unknown>;
}

export interface Live {
  close(): void;
  retryNow(): void;
  /** Sends a frame if the socket is open; false otherwise (nothing is queued). */
  send(frame: unknown): boolean;
}

/** A connection that stayed up this long resets the backoff. */
const STABLE_MS = 5000;

export function connectLive(url: string, onEvent: (e: LiveEvent) => void, onReopen: () => void): Live {
  let socket: WebSocket | null = null;
  let timer: ReturnType<typeof setTimeout> | undefined;
  let attempt = 0;
  let opened = false;
  let closed = false;

  const open = () => {
    clearTimeout(timer);
    if (closed) return;
    let since = 0;
    const ws = new WebSocket(url);
    socket = ws;
    ws.onopen = () => {
      since = Date.now();
      if (opened) onReopen();
      opened = true;
    };
    ws.onmessage = (m) => {
      if (typeof m.data !== 'string') return;
      try {
        const e = JSON.parse(m.data) as LiveEvent;
        if (e && typeof e.type === 'string' && e.data && typeof e.data === 'object') onEvent(e);
      } catch {
        /* not an event: ignore */
      }
    };
    ws.onclose = () => {
      if (socket !== ws || closed) return;
      socket = null;
      if (since && Date.now() - since >= STABLE_MS) attempt = 0;
      timer = setTimeout(open, backoff(attempt++));
    };
  };
  open();

  return {
    close() {
      closed = true;
      clearTimeout(timer);
      socket?.close();
      socket = null;
    },
    send(frame: unknown) {
      if (!socket || socket.readyState !== WebSocket.OPEN) return false;
      socket.send(JSON.stringify(frame));
      return true;
    },
    /** Back online: try at once instead of waiting out the backoff. */
    retryNow() {
      if (!closed && !socket) {
        attempt = 0;
        open();
      }
    },
  };
}
