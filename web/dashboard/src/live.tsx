import {
  createContext,
  useCallback,
  useContext,
  useEffect,
  useRef,
  useState,
  useSyncExternalStore,
  type ReactNode,
} from 'react';
import { TYPING } from '#vocabulary';
import { useQueryClient, type QueryClient } from '@tanstack/react-query';
import { ok } from './api/client.ts';
import { ApiError } from './api/problem.ts';
import { useApp } from './context.tsx';

// The live channel: a one-time ticket from POST /live/tickets, then a
// WebSocket to `liveUrl?ticket=...` that receives every event of the tenant as one JSON frame.
// Events only mark cached data stale; the screens read the data itself with the GET routes.
// Where the channel is not offered, screens fall back to polling.

export type LiveState = 'connecting' | 'live' | 'offline' | 'unavailable';
const LiveContext = createContext<LiveState>('unavailable');
export const useLive = () => useContext(LiveContext);

/**
 * Typing, both ways: customers typing (conversation id -> when the signal lapses), and the way
 * to tell a conversation's customer that this agent types. Nothing of it is stored.
 */
class TypingStore {
  private until = new Map<string, number>();
  private timers = new Map<string, ReturnType<typeof setTimeout>>();
  private listeners = new Set<() => void>();
  send: (frame: unknown) => boolean = () => false;
  subscribe = (l: () => void) => {
    this.listeners.add(l);
    return () => {
      this.listeners.delete(l);
    };
  };
  isTyping = (conversationId: string) => (this.until.get(conversationId) ?? 0) > Date.now();
  private emit() {
    for (const l of this.listeners) l();
  }
  set(conversationId: string, on: boolean) {
    clearTimeout(this.timers.get(conversationId));
    if (on) {
      this.until.set(conversationId, Date.now() + TYPING.shownSeconds * 1000);
      this.timers.set(
        conversationId,
        setTimeout(() => this.set(conversationId, false), TYPING.shownSeconds * 1000 + 50),
      );
    } else {
      this.until.delete(conversationId);
      this.timers.delete(conversationId);
    }
    this.emit();
  }
}
const TypingContext = createContext<TypingStore>(new TypingStore());

/** Whether the customer of this conversation is typing now (shown for a few seconds after their last signal). */
export function useCustomerTyping(conversationId: string): boolean {
  const store = useContext(TypingContext);
  return useSyncExternalStore(store.subscribe, () => store.isTyping(conversationId));
}

/** Tells the conversation's customer that this agent types: call on every keystroke, it sends at most every few seconds. */
export function useSignalTyping(conversationId: string): () => void {
  const store = useContext(TypingContext);
  const last = useRef(0);
  return useCallback(() => {
    const now = Date.now();
    if (now - last.current < TYPING.signalEverySeconds * 1000) return;
    if (store.send({ action: 'typing', conversationId })) last.current = now;
  }, [store, conversationId]);
}

interface LiveEvent {
  id: string;
  type: string;
  timestamp: string;
  tenantId: string;
  data: { conversationId?: string; conversation?: { id?: string }; ticket?: { id?: string; conversationId?: string } };
}

function apply(qc: QueryClient, typing: TypingStore, e: LiveEvent) {
  const d = e.data ?? {};
  if (e.type === 'typing') {
    const t = d as { conversationId?: string; role?: string };
    if (t.role === 'user' && t.conversationId) typing.set(t.conversationId, true);
    return;
  }
  // A customer's message ends their typing.
  if (
    e.type === 'message.created' &&
    d.conversationId &&
    (d as { message?: { role?: string } }).message?.role === 'user'
  )
    typing.set(d.conversationId, false);
  const conversationId: string | undefined = d.conversationId ?? d.conversation?.id ?? d.ticket?.conversationId;
  if (conversationId) void qc.invalidateQueries({ queryKey: ['conversation', conversationId] });
  if (e.type.startsWith('conversation.') || e.type === 'message.created')
    void qc.invalidateQueries({ queryKey: ['conversations'] });
  if (e.type.startsWith('ticket.') || e.type === 'conversation.escalated') {
    void qc.invalidateQueries({ queryKey: ['tickets'] });
    if (d.ticket?.id) void qc.invalidateQueries({ queryKey: ['ticket', d.ticket.id] });
  }
  void qc.invalidateQueries({ queryKey: ['stats'] });
}

export function LiveProvider({ children }: { children: ReactNode }) {
  const { api, config } = useApp();
  const qc = useQueryClient();
  const [state, setState] = useState<LiveState>(config.liveUrl ? 'connecting' : 'unavailable');
  const [typing] = useState(() => new TypingStore());

  useEffect(() => {
    const liveUrl = config.liveUrl;
    if (!liveUrl) return;
    let ws: WebSocket | null = null;
    let stopped = false;
    let attempt = 0;
    let everOpened = false;
    let timer: ReturnType<typeof setTimeout> | undefined;

    const retry = () => {
      if (stopped) return;
      // A channel that never opened is most likely not offered here: say "off", keep trying slowly.
      setState(!everOpened && attempt >= 1 ? 'unavailable' : 'offline');
      attempt += 1;
      timer = setTimeout(() => void connect(), Math.min(30_000, 1000 * 2 ** attempt));
    };
    const connect = async () => {
      setState('connecting');
      let ticket: string;
      try {
        ({ ticket } = await ok(api.POST('/api/v1/admin/live/tickets')));
      } catch (e) {
        // Not offered by this deployment (yet): poll instead, without retrying.
        if (e instanceof ApiError && (e.status === 404 || e.status === 405)) {
          setState('unavailable');
          return;
        }
        retry();
        return;
      }
      if (stopped) return;
      const socket = new WebSocket(`${liveUrl}?ticket=${encodeURIComponent(ticket)}`);
      ws = socket;
      typing.send = (frame) => {
        if (socket.readyState !== WebSocket.OPEN) return false;
        socket.send(JSON.stringify(frame));
        return true;
      };
      ws.onopen = () => {
        attempt = 0;
        everOpened = true;
        setState('live');
        // What happened while disconnected is read again.
        void qc.invalidateQueries();
      };
      ws.onmessage = (m) => {
        try {
          apply(qc, typing, JSON.parse(String(m.data)) as LiveEvent);
        } catch {
          /* not an event frame */
        }
      };
      ws.onclose = () => {
        ws = null;
        retry();
      };
    };
    void connect();
    return () => {
      stopped = true;
      clearTimeout(timer);
      ws?.close();
    };
  }, [api, config.liveUrl, qc, typing]);

  return (
    <LiveContext.Provider value={state}>
      <TypingContext.Provider value={typing}>{children}</TypingContext.Provider>
    </LiveContext.Provider>
  );
}

const TEXT: Record<LiveState, string> = {
  live: 'Live',
  connecting: 'Connecting…',
  offline: 'Offline, retrying',
  unavailable: 'Live updates off',
};

export function LiveStatus() {
  const state = useLive();
  return (
    <span className={`live live-${state}`}>
      <span className="dot" aria-hidden="true" />
      {TEXT[state]}
    </span>
  );
}

/** How often a screen re-reads data that live events would otherwise refresh. */
export const usePollInterval = (ms = 10_000): number | false => (useLive() === 'live' ? false : ms);
