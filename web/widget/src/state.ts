import type { Live } from './socket.ts';
import type { Message, OwnConversations, Visitor, WidgetInfo } from './types.ts';

// The widget's state, in one object: what the page has learnt, what is on screen, and what this
// browser keeps for the next page load (localStorage, per widget key, read on first use: a page's
// first read of localStorage is slow, and a closed widget's page load does without it).

/**
 * What survives a page load, per widget key. `userId`: the signed-in visitor the conversation is
 * theirs (another one signing in on this browser starts afresh); `email`: the address left for the reply.
 */
export interface Saved {
  conversationId?: string;
  ticketId?: string;
  ticketStatus?: string;
  ticketNumber?: number;
  rated?: string;
  userId?: string;
  email?: string;
  /** The ticket for which the team, away, asked for an email (the box comes back after a reload until one is given). */
  emailAsked?: string;
  /** Messages that arrived while the panel was closed, for the launcher's badge after a reload. */
  unread?: number;
  /** The time of the newest message the customer has had in front of them (the panel open): later ones are unread. */
  seenAt?: string;
  /** The reason the customer gave when asking for a person (the ticket keeps it; the transcript shows it from here). */
  reason?: { ticketId: string; text: string; at: string };
}

/** A message on screen; `id` is null until the server names it. */
export interface Shown {
  id: string | null;
  role: Message['role'];
  content: string;
  at: string;
  el: HTMLLIElement;
}

/** A ticket's statuses while it is with the team: shown as active, and the customer's typing reaches them. */
export const ACTIVE_TICKET = ['open', 'in_progress', 'waiting'];

export type WidgetState = ReturnType<typeof createState>;

export function createState(widgetKey: string) {
  const storeKey = `support-widget:${widgetKey}`;
  const load = (): Saved => {
    try {
      return JSON.parse(localStorage.getItem(storeKey) ?? '{}') as Saved;
    } catch {
      return {};
    }
  };
  let kept: Saved | null = null;
  const state = {
    /** What this browser kept, read the first time it is asked for. */
    get saved(): Saved {
      if (!kept) {
        kept = load();
        // A conversation kept for another signed-in customer is not this one's to read (a page that
        // names nobody keeps it: the site may identify the customer a moment later).
        if (state.visitor && kept.userId && kept.userId !== state.visitor.userId) state.forget();
      }
      return kept!;
    },
    set saved(s: Saved) {
      kept = s;
    },
    /** Whether `saved` has been read from localStorage yet. */
    get loaded() {
      return kept !== null;
    },
    /** The tenant's settings, once read. */
    info: null as WidgetInfo | null,
    isOpen: false,
    /** The conversation was read from the server on this page (or there is none to read). */
    historyRead: false,
    /** The conversation on screen is an email thread (read here, answered by email). */
    emailThread: false,
    /** A send or an escalation is on its way. */
    busy: false,
    /** Messages that arrived while the panel was closed. */
    unread: 0 as number,
    live: null as Live | null,
    /** Who the site says the customer is. */
    visitor: null as Visitor | null,
    /** A verified visitor's conversations, once read. */
    past: null as OwnConversations['items'] | null,
    shown: [] as Shown[],
    save(patch: Partial<Saved>) {
      state.saved = { ...state.saved, ...patch };
      try {
        localStorage.setItem(storeKey, JSON.stringify(state.saved));
      } catch {
        /* storage off: this page load only */
      }
    },
    /** What is on screen now has been seen (the panel is open). */
    seen() {
      const newest = state.shown.reduce(
        (m, s) => (s.id !== null && !s.id.startsWith('reason:') && s.at > m ? s.at : m),
        '',
      );
      if (newest && newest !== state.saved.seenAt) state.save({ seenAt: newest });
    },
    /**
     * A message this page showed before the server named it was in front of the customer (the page
     * shows such messages only in an open panel): it is seen, even if its name came with the panel closed.
     */
    seenThrough(at: string) {
      if (!state.saved.seenAt || at > state.saved.seenAt) state.save({ seenAt: at });
    },
    forget() {
      state.saved = {};
      try {
        localStorage.removeItem(storeKey);
      } catch {
        /* nothing kept */
      }
    },
  };
  return state;
}
