import { createContext, useContext, useEffect, useState, type ReactNode } from 'react';
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

interface LiveEvent {
  id: string; type: string; timestamp: string; tenantId: string;
  data: { conversationId?: string; conversation?: { id?: string }; ticket?: { id?: string; conversationId?: string } };
}

function apply(qc: QueryClient, e: LiveEvent) {
  const d = e.data ?? {};
  const conversationId: string | undefined = d.conversationId ?? d.conversation?.id ?? d.ticket?.conversationId;
  if (conversationId) void qc.invalidateQueries({ queryKey: ['conversation', conversationId] });
  if (e.type.startsWith('conversation.') || e.type === 'message.created') void qc.invalidateQueries({ queryKey: ['conversations'] });
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
        if (e instanceof ApiError && (e.status === 404 || e.status === 405)) { setState('unavailable'); return; }
        retry();
        return;
      }
      if (stopped) return;
      ws = new WebSocket(`${liveUrl}?ticket=${encodeURIComponent(ticket)}`);
      ws.onopen = () => {
        attempt = 0;
        everOpened = true;
        setState('live');
        // What happened while disconnected is read again.
        void qc.invalidateQueries();
      };
      ws.onmessage = (m) => {
        try { apply(qc, JSON.parse(String(m.data)) as LiveEvent); } catch { /* not an event frame */ }
      };
      ws.onclose = () => { ws = null; retry(); };
    };
    void connect();
    return () => { stopped = true; clearTimeout(timer); ws?.close(); };
  }, [api, config.liveUrl, qc]);

  return <LiveContext.Provider value={state}>{children}</LiveContext.Provider>;
}

const TEXT: Record<LiveState, string> = {
  live: 'Live', connecting: 'Connecting…', offline: 'Offline, retrying', unavailable: 'Live updates off',
};

export function LiveStatus() {
  const state = useLive();
  return <span className={`live live-${state}`}><span className="dot" aria-hidden="true" />{TEXT[state]}</span>;
}

/** How often a screen re-reads data that live events would otherwise refresh. */
export const usePollInterval = (ms = 10_000): number | false => (useLive() === 'live' ? false : ms);
