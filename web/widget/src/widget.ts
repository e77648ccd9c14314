import { asApiError, createFail, type Fail } from './failure.ts';
import { createHandoff } from './handoff.ts';
import { createHours } from './hours.ts';
import { connectLive, type LiveEvent } from './socket.ts';
import { ACTIVE_TICKET, createState, type Shown, type WidgetState } from './state.ts';
import { createTranscript, type Transcript } from './transcript.ts';
import { type Api, ApiError, createApi, newKey } from './transport.ts';
import { createTyping } from './typing.ts';
import type { Conversation, Message, Reply, Visitor } from './types.ts';
import { markFailed, markHeld } from './views/messages.ts';
import { buildLauncher, type Launcher } from './views/launcher.ts';
import { lazyPanel, type PanelRef } from './views/panel.ts';
import { createVisitor, signed } from './visitor.ts';

// The widget: its state, the chat API, the live socket and the views wired together, with the
// conversation's own flow (send, read, the ticket, start over, open, close). The rest has a module
// each: the transcript, typing both ways, business hours, the visitor and their earlier
// conversations, asking for a person and rating them, and what a failed call tells the customer.
//
// At load only the launcher is built and the tenant's settings read: the panel is built on first use
// (opened, or something to show in it, or the launcher hovered or focused), and what this browser
// kept (the conversation, the unread count) is read once the page is idle after that.

export interface Options {
  widgetKey: string;
  apiBase: string;
  /** Open the panel once loaded. */
  open?: boolean;
  /** Overrides the tenant's theme position. */
  position?: 'left' | 'right';
  /** Who the customer is (the tag's data-user-* attributes). */
  visitor?: Visitor | null;
}

export interface Handle {
  open(): void;
  close(): void;
  destroy(): void;
  /** The site's signed-in customer: `{ userId, name?, email?, userHash? }`; null forgets them. */
  identify(v: Visitor | null): void;
  /** The customer signed out: forget them and the conversation kept in this browser. */
  logout(): void;
}

/**
 * What mount wires together, handed to each step of the conversation's flow below: one object, so
 * every step reads and writes the same state and parts.
 */
interface Ctx {
  opts: Options;
  api: Api;
  state: WidgetState;
  /** The launcher, built at load. */
  shell: Launcher;
  /** The panel, built on first call. */
  ui: PanelRef;
  fail: Fail;
  /** The launcher's label and unread badge, from the state. */
  label(): void;
  /** The panel's side: the tag's position, else the theme's. */
  position(p: string | undefined): void;
  transcript: Transcript;
  typing: ReturnType<typeof createTyping>;
  hours: ReturnType<typeof createHours>;
  visitor: ReturnType<typeof createVisitor>;
  handoff: ReturnType<typeof createHandoff>;
  /** What this browser kept has been restored (the badge, the ticket, the live channel: see restore). */
  restored: boolean;
  /** The idle callback that restores it, until it has run. */
  idle: (() => void) | null;
}

export function mount(opts: Options): Handle {
  const api = createApi(opts.apiBase, opts.widgetKey);
  const state = createState(opts.widgetKey);
  const shell = buildLauncher({
    toggle: () => (state.isOpen ? close(c) : open(c)),
    close: () => close(c),
    // Built ahead while the customer reaches for it, so that the click only shows it.
    warm: () => void ui(),
  });
  const ui = lazyPanel(
    shell,
    {
      close: () => close(c),
      submit: () => submitMessage(c),
      typed: () => typing.customerTypes(),
      handoff: () => handoff.showEscalate(),
      past: (from) => visitor.openList(from),
    },
    () => built(c),
  );
  const label = () => shell.labelLauncher(state.info?.theme.title, state.isOpen, state.unread);
  const position = (p: string | undefined) => shell.position((opts.position ?? p) === 'left');
  position(undefined);
  label();

  const fail = createFail(ui, () => !!signed(state));
  const transcript = createTranscript(state, ui, api, label);
  const typing = createTyping(state, ui);
  const hours = createHours(state, ui, api, fail);
  const visitor = createVisitor(state, ui, api, fail, {
    startOver: () => startOver(c),
    readHistory: () => readHistory(c),
  });
  const handoff = createHandoff(state, ui, api, fail, transcript, {
    send: (text, s, key, handover) => send(c, text, s, key, handover),
    setTicket: (id, status, number) => setTicket(c, id, status, number),
    askEmail: hours.askEmail,
  });
  const c: Ctx = {
    opts,
    api,
    state,
    shell,
    ui,
    fail,
    label,
    position,
    transcript,
    typing,
    hours,
    visitor,
    handoff,
    restored: false,
    idle: null,
  };

  const onOnline = () => {
    if (ui.built()) ui().notice.online();
    state.live?.retryNow();
  };
  window.addEventListener('online', onOnline);

  visitor.identify(opts.visitor ?? null);
  void start(c);
  if (opts.open) open(c);

  return {
    open: () => open(c),
    close: () => close(c),
    identify: visitor.identify,
    logout() {
      visitor.identify(null);
      startOver(c);
    },
    destroy() {
      c.idle?.();
      typing.destroy();
      hours.destroy();
      state.live?.close();
      window.removeEventListener('online', onOnline);
      if (ui.built()) ui().remove();
      shell.remove();
    },
  };
}

// ---- the conversation, its ticket and its live channel --------------------------------------

/**
 * `number`: the ticket's `#1042`, what the customer is shown (kept from the first answer that named it).
 * A ticket known so far by its number only (a conversation read names no ticket id) is the same
 * ticket when an event names its id: no second announcement, and its rating kept.
 */
function setTicket(c: Ctx, id: string, status: string, number?: number | null) {
  const { state } = c;
  const view = c.ui();
  const { saved } = state;
  const same = saved.ticketId === id || (number != null && saved.ticketNumber === number);
  const changed = !same || saved.ticketStatus !== status;
  const known = number ?? (same ? saved.ticketNumber : undefined);
  const rated = same && saved.rated !== undefined && saved.rated === saved.ticketId ? id : saved.rated;
  state.save({ ticketId: id, ticketStatus: status, ticketNumber: known ?? undefined, rated });
  const where = state.emailThread ? 'by email' : 'here';
  const text =
    status === 'in_progress'
      ? `a person from our team is on it and will reply ${where}.`
      : status === 'resolved'
        ? 'resolved.'
        : status === 'closed'
          ? 'closed.'
          : `our team will reply ${where}.`;
  const name = known ? `#${known}` : null;
  view.showTicket(id, name, text, ACTIVE_TICKET.includes(status));
  if (changed) view.announce(`${name ? `Ticket ${name}` : 'Your request'}: ${text}`);
  if (status === 'resolved' && state.saved.rated !== id) c.handoff.showRating(id);
  connect(c);
}

function connect(c: Ctx) {
  const { state } = c;
  const { info, saved } = state;
  if (state.live || !info?.liveUrl || !saved.conversationId) return;
  const url = `${info.liveUrl}?widgetKey=${encodeURIComponent(c.opts.widgetKey)}&conversationId=${encodeURIComponent(saved.conversationId)}`;
  state.live = connectLive(
    url,
    (e) => onEvent(c, e),
    () => {
      void readHistory(c);
    },
  );
}

function onEvent(c: Ctx, e: LiveEvent) {
  const { state } = c;
  const d = e.data as {
    conversationId?: string;
    message?: Message;
    role?: string;
    name?: string;
    ticket?: { id?: string; status?: string; conversationId?: string; number?: number | null };
  };
  if (e.type === 'typing') {
    if (d.role === 'agent' && d.conversationId === state.saved.conversationId)
      c.typing.agentTypes(typeof d.name === 'string' ? d.name : '');
  } else if (e.type === 'message.created' && d.conversationId === state.saved.conversationId && d.message?.id) {
    if (d.message.role !== 'user') c.ui().setTyping(false);
    if (d.message.role === 'agent') c.typing.agentTypes(null);
    c.transcript.arrive(d.message);
  } else if (
    (e.type === 'ticket.updated' || e.type === 'ticket.created' || e.type === 'conversation.escalated') &&
    d.ticket?.id &&
    d.ticket.status
  ) {
    if (d.ticket.conversationId && d.ticket.conversationId !== state.saved.conversationId) return;
    setTicket(c, d.ticket.id, d.ticket.status, d.ticket.number);
  }
}

/** The conversation as the server has it; what this page already shows is kept, by id. */
async function readHistory(c: Ctx): Promise<void> {
  const { state, transcript } = c;
  const id = state.saved.conversationId;
  if (!id) return;
  try {
    const r = await c.api.conversation(id);
    if (state.saved.conversationId !== id) return;
    const view = c.ui();
    for (const m of r.messages) transcript.merge(m);
    // An email thread began with the customer's mail: no chat greeting above it, and the team replies by email.
    state.emailThread = r.conversation.channel === 'email';
    view.greeting.hidden = state.emailThread;
    showTicketRead(c, r.ticket);
    transcript.showReason();
    transcript.order();
    state.historyRead = true;
    if (state.isOpen) state.seen();
    connect(c);
    if (r.conversation.status === 'closed') ended(c);
    // A linked email thread is read here and answered by email (the chat API refuses to write to it).
    else if (r.conversation.channel === 'email') view.enable(false, 'Reply to the email to continue');
    view.scrollDown();
  } catch (err) {
    if (err instanceof ApiError && err.failure === 'not-found') {
      startOver(c);
      return;
    }
    c.fail(err, () => {
      void readHistory(c);
    });
  }
}

/**
 * The latest ticket as the conversation read gives it (reopened, or a page reloaded on it): the
 * ticket bar at once, without waiting for a ticket event on the live channel.
 */
function showTicketRead(c: Ctx, t: Conversation['ticket']) {
  if (!t) return;
  const { saved } = c.state;
  const same =
    !!saved.ticketId && (t.number === null || saved.ticketNumber === undefined || saved.ticketNumber === t.number);
  setTicket(c, same ? saved.ticketId! : `#${t.number}`, t.status, t.number);
}

/** A new conversation: the old one is forgotten here (it stays with the support team). */
function startOver(c: Ctx) {
  const { state } = c;
  c.typing.reset();
  state.live?.close();
  state.live = null;
  state.forget();
  state.emailThread = false;
  c.transcript.clear();
  // A panel not built yet is fresh already.
  if (c.ui.built()) {
    const view = c.ui();
    view.greeting.hidden = false;
    view.extra.replaceChildren();
    view.showTicket(null);
    view.enable(true);
    view.notice.clear();
  }
  state.historyRead = true;
  c.visitor.showPast();
}

function ended(c: Ctx) {
  c.fail(new ApiError('closed'), null, {
    label: 'Start a new conversation',
    run: () => {
      startOver(c);
      c.ui().input.focus();
    },
  });
}

// ---- sending --------------------------------------------------------------------------------

async function send(c: Ctx, text: string, s: Shown, key: string, handover = false): Promise<Reply | null> {
  const { state } = c;
  const view = c.ui();
  state.busy = true;
  view.sendBtn.disabled = true;
  view.setTyping(true);
  try {
    const { visitor: v } = state;
    const r = await c.api.send(text, state.saved.conversationId ?? null, v, key, handover);
    markFailed(s.el, false);
    if (r.conversationId !== state.saved.conversationId) {
      state.save({ conversationId: r.conversationId });
      c.visitor.showPast();
    }
    if (v && state.saved.userId !== v.userId) state.save({ userId: v.userId });
    if (r.message) c.transcript.arrive(r.message, r.metadata?.sources, r.metadata?.format);
    const ticketId = r.metadata?.ticketId;
    if (ticketId) {
      setTicket(c, ticketId, 'open', r.metadata?.ticketNumber);
      if (state.info && !state.info.online) c.hours.askEmail(); // the assistant escalated while the team is away
    } else if (r.handledBy === 'agent') {
      // The team has the conversation: the assistant stays silent and a person answers here.
      markHeld(s.el);
      view.announce('Sent to our team: a person will answer here.');
      if (state.saved.ticketId)
        setTicket(c, state.saved.ticketId, state.saved.ticketStatus ?? 'open', state.saved.ticketNumber);
    }
    connect(c);
    return r;
  } catch (err) {
    const e = asApiError(err);
    if (e.failure === 'not-found' && state.saved.conversationId) {
      // The stored conversation is gone: this message starts a new one.
      state.forget();
      return send(c, text, s, newKey(), handover);
    }
    markFailed(s.el, true);
    if (e.failure === 'closed') {
      s.el.remove();
      state.shown.splice(state.shown.indexOf(s), 1);
      view.input.value = text;
      ended(c);
    } else {
      // The same Idempotency-Key: a retry of a request that did get through stores nothing twice.
      const fatal = e.failure === 'origin' || e.failure === 'key';
      // A refused identity is the site's to fix (or the customer's, signing in again): no retry.
      c.fail(
        e,
        fatal || e.failure === 'identity' || e.failure === 'sign-in'
          ? null
          : () => {
              void send(c, text, s, key, handover);
            },
      );
      if (fatal) view.enable(false);
    }
    return null;
  } finally {
    state.busy = false;
    view.sendBtn.disabled = view.input.disabled;
    view.setTyping(false);
  }
}

function submitMessage(c: Ctx) {
  const { state } = c;
  const view = c.ui();
  const text = view.input.value.trim();
  if (!text || state.busy || view.input.disabled) return;
  view.notice.clear();
  view.input.value = '';
  void send(c, text, c.transcript.local('user', text), newKey());
}

// ---- open, close, start ---------------------------------------------------------------------

function open(c: Ctx) {
  const { state } = c;
  if (state.isOpen) return;
  const view = c.ui();
  view.show();
  state.isOpen = true;
  state.unread = 0;
  if (state.saved.unread) state.save({ unread: undefined });
  c.label();
  // Opened before the idle callback came: what this browser kept is restored now (and read, the panel open).
  if (state.info && !c.restored) restore(c);
  else if (state.info && !state.historyRead && state.saved.conversationId) void readHistory(c);
  if (state.past === null) void c.visitor.loadPast();
  view.scrollDown();
  view.focusFirst();
}

function close(c: Ctx) {
  const { state } = c;
  if (!state.isOpen) return;
  const view = c.ui();
  state.seen();
  state.isOpen = false;
  view.hide();
  c.label();
  view.restoreFocus();
}

/**
 * A page loaded with the team on the conversation and the panel closed: replies that came while
 * no page was open are read now, and the launcher counts those newer than what was last seen.
 */
async function catchUp(c: Ctx) {
  const { state } = c;
  const { saved } = state;
  if (
    state.isOpen ||
    state.historyRead ||
    !saved.conversationId ||
    !saved.seenAt ||
    !saved.ticketStatus ||
    !ACTIVE_TICKET.includes(saved.ticketStatus)
  )
    return;
  await readHistory(c);
  if (state.isOpen) return;
  const unread = state.shown.filter(
    (s) => s.id !== null && s.role !== 'user' && !s.id.startsWith('reason:') && s.at > saved.seenAt!,
  ).length;
  if (unread > state.unread) {
    state.unread = unread;
    state.save({ unread });
    c.label();
  }
}

async function start(c: Ctx) {
  const { state } = c;
  try {
    state.info = await c.api.widget();
  } catch (err) {
    const fatal = err instanceof ApiError && (err.failure === 'origin' || err.failure === 'key');
    c.fail(
      err,
      fatal
        ? null
        : () => {
            void start(c);
          },
    );
    if (fatal) {
      const view = c.ui();
      view.enable(false);
      view.greeting.hidden = true;
    }
    return;
  }
  const { info } = state;
  c.shell.applyTheme(info.theme.color);
  c.position(info.theme.position);
  if (c.ui.built()) head(c);
  c.hours.show();
  c.label();
  if (state.isOpen) {
    restore(c);
    void c.visitor.loadPast();
  } else if (!c.restored) {
    c.idle = whenIdle(() => restore(c));
  }
}

/**
 * What this browser kept, once the settings are known: the launcher's unread count (a closed
 * panel's unread messages are still unread after a reload), the ticket, and the conversation read
 * (the panel open), caught up with or followed on the live channel. Run when the page is idle after
 * the settings came (a page that loads with the chat closed does without it until then), or at
 * once when the panel opens first.
 */
function restore(c: Ctx) {
  const { state } = c;
  if (c.restored) return;
  c.restored = true;
  c.idle?.();
  c.idle = null;
  state.unread = state.saved.unread ?? 0;
  c.label();
  if (state.saved.ticketId && state.saved.ticketStatus) {
    setTicket(c, state.saved.ticketId, state.saved.ticketStatus);
    c.hours.askAgain(ACTIVE_TICKET.includes(state.saved.ticketStatus));
  }
  if (state.isOpen) {
    if (!state.historyRead) void readHistory(c);
  } else if (state.shown.length)
    connect(c); // messages sent before the settings came
  else void catchUp(c);
}

/** Runs `run` when the page is idle (within a second); returns what cancels it. */
function whenIdle(run: () => void): () => void {
  if (typeof requestIdleCallback === 'function') {
    const id = requestIdleCallback(run, { timeout: 1000 });
    return () => cancelIdleCallback(id);
  }
  // No idle callbacks (Safari): the next task.
  const id = setTimeout(run, 0);
  return () => clearTimeout(id);
}

/** The tenant's title and greeting in the panel's head and conversation, once the settings are known. */
function head(c: Ctx) {
  const { info } = c.state;
  if (!info) return;
  const view = c.ui();
  view.title.textContent = info.theme.title;
  view.greet(info.greeting);
}

/** A panel just built: brought up to date with what the page knows (the settings, the earlier conversations). */
function built(c: Ctx) {
  head(c);
  c.hours.line();
  c.visitor.showPast();
}
