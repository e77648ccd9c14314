import { connectLive, type LiveEvent } from './socket.ts';
import { createState, type Shown } from './state.ts';
import { ApiError, createApi, newKey } from './transport.ts';
import type { Message, Reply, Source, TextFormat, Visitor } from './types.ts';
import { emailCard, escalateCard, ratingCard } from './views/cards.ts';
import { backAt, hoursText } from './views/hours.ts';
import { bubble, markFailed } from './views/messages.ts';
import { failureText, type NoticeAction } from './views/notice.ts';
import { buildPanel } from './views/panel.ts';
import { pastCard } from './views/past.ts';

// The widget: its state, the chat API, the live socket and the views wired together, and the
// conversation's flow (send, read, escalate, rate) between them.

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
  open(): void; close(): void; destroy(): void;
  /** The site's signed-in customer: `{ userId, name?, email?, userHash? }`; null forgets them. */
  identify(v: Visitor | null): void;
  /** The customer signed out: forget them and the conversation kept in this browser. */
  logout(): void;
}

/** The facts as the API takes them: trimmed, empty ones left out; null without a user id. */
function visitorOf(v: Partial<Record<keyof Visitor, unknown>> | null | undefined): Visitor | null {
  const pick = (x: unknown) => (typeof x === 'string' || typeof x === 'number' ? String(x).trim() : '') || undefined;
  const userId = pick(v?.userId);
  if (!userId) return null;
  const out: Visitor = { userId };
  for (const k of ['name', 'email', 'userHash'] as const) { const x = pick(v?.[k]); if (x) out[k] = x; }
  return out;
}

const ACTIVE_TICKET = ['open', 'in_progress', 'waiting'];
/** Typing: sent at most this often while the customer types; an agent's shown this long after their last signal. */
const TYPING_SIGNAL_MS = 2000;
const TYPING_SHOWN_MS = 6000;
const DEFAULT_REASON = 'The customer asked to talk to a person.';

const asApiError = (err: unknown) => {
  if (err instanceof ApiError) return err;
  console.error('SupportWidget:', err);
  return new ApiError('failing');
};

export function mount(opts: Options): Handle {
  const api = createApi(opts.apiBase, opts.widgetKey);
  const state = createState(opts.widgetKey);
  const view = buildPanel({
    toggle: () => (state.isOpen ? close() : open()), close, submit: submitMessage, handoff: showEscalate,
    past: (from) => view.past.open(state.past ?? [], state.saved.conversationId, reopen, () => { startOver(); view.input.focus(); }, from),
  });
  const label = () => view.labelLauncher(state.info?.theme.title, state.isOpen, state.unread);
  const position = (p: string | undefined) => view.position((opts.position ?? p) === 'left');
  position(undefined);
  label();

  /** Says what went wrong, with one action; `retry` waits out Retry-After first, and runs by itself then. */
  function fail(err: unknown, retry: (() => void) | null, action?: NoticeAction) {
    let e = asApiError(err);
    // Refused for want of a signature the site never gave: the customer is to sign in, not again.
    if (e.failure === 'identity' && !signed()) e = new ApiError('sign-in', null, e.message);
    const retryAction = retry && { label: 'Try again', run: retry, after: e.retryAfter ?? 0, whenOnline: e.failure === 'offline' };
    view.notice.show(failureText(e, !!retry && !action), action ?? retryAction ?? undefined);
    view.scrollDown();
    if (e.failure === 'origin') {
      console.error(`SupportWidget: ${location.origin} is not one of this widget's allowed origins (widget.allowedOrigins in the settings).`);
    } else if (e.failure === 'key') {
      console.error('SupportWidget: the widget key was refused; check data-widget-key.');
    } else if (e.failure === 'refused' && /visitor/.test(e.message)) {
      console.error(`SupportWidget: the visitor's facts were refused (${e.message}); check data-user-* or SupportWidget.identify().`);
    } else if (e.failure === 'identity' || e.failure === 'sign-in') {
      console.error(`SupportWidget: the visitor was refused (${e.message}); check data-user-hash or SupportWidget.identify().`);
    }
  }

  // ---- messages -----------------------------------------------------------------------------

  const draw = (m: Parameters<typeof bubble>[0]) => bubble(m, (s, from) => { void showArticle(s, from); });

  /**
   * Adds a message unless it is there already: by id, or (for what this page sent before the
   * server named it) by role and text. Returns whether it was new.
   */
  function merge(m: Message, sources?: Source[], format?: TextFormat): boolean {
    const { shown } = state;
    if (m.id && shown.some((s) => s.id === m.id)) return false;
    const pending = shown.find((s) => s.id === null && s.role === m.role && s.content === m.content);
    if (pending) { pending.id = m.id; pending.at = m.createdAt; return false; }
    const el = draw({ role: m.role, content: m.content, author: m.author, sources: sources ?? m.metadata?.sources ?? m.sources, format: format ?? m.metadata?.format ?? m.format });
    shown.push({ id: m.id, role: m.role, content: m.content, at: m.createdAt, el });
    view.list.append(el);
    return true;
  }

  /**
   * The reason the customer gave when asking for a person, in the transcript where they asked
   * (the service keeps it on the ticket, not as a message; this browser keeps it for the next page).
   */
  function showReason() {
    const r = state.saved.reason;
    if (!r || r.ticketId !== state.saved.ticketId) return;
    const id = `reason:${r.ticketId}`;
    if (state.shown.some((s) => s.id === id)) return;
    const el = draw({ role: 'user', content: r.text, note: 'You asked for a person' });
    state.shown.push({ id, role: 'user', content: r.text, at: r.at, el });
    view.list.append(el);
  }

  /** Server messages by time, then what this page has not yet seen confirmed. */
  function order() {
    const sorted = [...state.shown].sort((a, b) => (a.id === null ? 1 : 0) - (b.id === null ? 1 : 0) || (a.at < b.at ? -1 : a.at > b.at ? 1 : 0));
    for (const s of sorted) view.list.append(s.el);
  }

  /** A message that arrived by itself (live channel or a reply): shown, announced, counted while closed. */
  function arrive(m: Message, sources?: Source[], format?: TextFormat) {
    if (!merge(m, sources, format)) return;
    if (m.role !== 'user') {
      view.announce(`${m.role === 'agent' ? m.author?.name || 'Support team' : 'Assistant'} says: ${m.content}`);
      if (!state.isOpen) { state.unread++; label(); }
    }
    view.scrollDown();
  }

  /** A message shown before the server has named it (its id comes with a history read or live event). */
  const local = (role: Message['role'], content: string): Shown => {
    const s: Shown = { id: null, role, content, at: new Date().toISOString(), el: draw({ role, content }) };
    state.shown.push(s);
    view.list.append(s.el);
    view.scrollDown();
    return s;
  };

  // ---- conversation -------------------------------------------------------------------------

  /** `number`: the ticket's `#1042`, what the customer is shown (kept from the first answer that named it). */
  function setTicket(id: string, status: string, number?: number | null) {
    const { saved } = state;
    const changed = saved.ticketId !== id || saved.ticketStatus !== status;
    const known = number ?? (saved.ticketId === id ? saved.ticketNumber : undefined);
    state.save({ ticketId: id, ticketStatus: status, ticketNumber: known ?? undefined });
    const text = status === 'in_progress' ? 'a person from our team is on it and will reply here.'
      : status === 'resolved' ? 'resolved.' : status === 'closed' ? 'closed.' : 'our team will reply here.';
    const name = known ? `#${known}` : null;
    view.showTicket(id, name, text, ACTIVE_TICKET.includes(status));
    if (changed) view.announce(`${name ? `Ticket ${name}` : 'Your request'}: ${text}`);
    if (status === 'resolved' && state.saved.rated !== id) showRating(id);
    connect();
  }

  function connect() {
    const { info, saved } = state;
    if (state.live || !info?.liveUrl || !saved.conversationId) return;
    const url = `${info.liveUrl}?widgetKey=${encodeURIComponent(opts.widgetKey)}&conversationId=${encodeURIComponent(saved.conversationId)}`;
    state.live = connectLive(url, onEvent, () => { void readHistory(); });
  }

  // ---- typing, both ways ----------------------------------------------------------------------

  let typingSentAt = 0;
  let agentTypingTimer: ReturnType<typeof setTimeout> | undefined;
  let agentPresent = false;
  /**
   * While a person of the team is on the conversation (an active ticket, or an agent who wrote or
   * typed here), they see the customer typing (throttled); a chat with the assistant alone sends nothing.
   */
  function customerTypes() {
    const { saved } = state;
    const person = (saved.ticketStatus !== undefined && ACTIVE_TICKET.includes(saved.ticketStatus))
      || agentPresent || state.shown.some((s) => s.role === 'agent');
    if (!saved.conversationId || !person || !view.input.value.trim()) return;
    const now = Date.now();
    if (now - typingSentAt < TYPING_SIGNAL_MS) return;
    if (state.live?.send({ action: 'typing', conversationId: saved.conversationId })) typingSentAt = now;
  }
  view.input.addEventListener('input', customerTypes);
  function agentTypes(name: string | null) {
    if (name !== null) agentPresent = true;
    clearTimeout(agentTypingTimer);
    view.setAgentTyping(name);
    if (name !== null) agentTypingTimer = setTimeout(() => view.setAgentTyping(null), TYPING_SHOWN_MS);
  }

  function onEvent(e: LiveEvent) {
    const d = e.data as {
      conversationId?: string; message?: Message; role?: string; name?: string;
      ticket?: { id?: string; status?: string; conversationId?: string; number?: number | null };
    };
    if (e.type === 'typing') {
      if (d.role === 'agent' && d.conversationId === state.saved.conversationId) agentTypes(typeof d.name === 'string' ? d.name : '');
    } else if (e.type === 'message.created' && d.conversationId === state.saved.conversationId && d.message?.id) {
      if (d.message.role !== 'user') view.setTyping(false);
      if (d.message.role === 'agent') agentTypes(null);
      arrive(d.message);
    } else if ((e.type === 'ticket.updated' || e.type === 'ticket.created' || e.type === 'conversation.escalated') && d.ticket?.id && d.ticket.status) {
      if (d.ticket.conversationId && d.ticket.conversationId !== state.saved.conversationId) return;
      setTicket(d.ticket.id, d.ticket.status, d.ticket.number);
    }
  }

  /** The conversation as the server has it; what this page already shows is kept, by id. */
  async function readHistory(): Promise<void> {
    const id = state.saved.conversationId;
    if (!id) return;
    try {
      const r = await api.conversation(id);
      if (state.saved.conversationId !== id) return;
      for (const m of r.messages) merge(m);
      showReason();
      order();
      state.historyRead = true;
      connect();
      if (r.conversation.status === 'closed') ended();
      view.scrollDown();
    } catch (err) {
      if (err instanceof ApiError && err.failure === 'not-found') { startOver(); return; }
      fail(err, () => { void readHistory(); });
    }
  }

  /** A new conversation: the old one is forgotten here (it stays with the support team). */
  function startOver() {
    agentTypes(null);
    agentPresent = false;
    state.live?.close();
    state.live = null;
    state.forget();
    for (const s of state.shown) s.el.remove();
    state.shown.length = 0;
    view.extra.replaceChildren();
    view.showTicket(null);
    view.enable(true);
    view.notice.clear();
    state.historyRead = true;
    showPast();
  }

  // ---- who the customer is ------------------------------------------------------------------

  const signed = () => { const v = state.visitor; return v?.userHash ? { ...v, userHash: v.userHash } : null; };

  function identify(input: Visitor | null) {
    const v = visitorOf(input);
    if (input && !v) { console.error('SupportWidget.identify: userId is required'); return; }
    state.visitor = v;
    state.past = null;
    // A conversation kept for another signed-in customer is not this one's to read.
    // (A page that names nobody keeps it: the site may identify the customer a moment later.)
    if (v && state.saved.userId && state.saved.userId !== v.userId) startOver();
    showPast();
    if (state.isOpen) void loadPast();
  }

  /** A signed-in customer's conversations, from any device (read once per page, when the panel opens). */
  async function loadPast() {
    const v = signed();
    if (!v || !state.info) return;
    const asked = state.visitor;
    try {
      const r = await api.mine(v);
      if (state.visitor !== asked) return;
      state.past = r.items;
      showPast();
    } catch (err) {
      fail(err, asApiError(err).failure === 'identity' ? null : () => { void loadPast(); });
    }
  }

  /** The link to the list, when there is another conversation; the latest few above a fresh one. */
  function showPast() {
    const items = state.past ?? [];
    const current = state.saved.conversationId;
    view.pastLink.hidden = !items.some((c) => c.id !== current);
    view.pastCard.replaceChildren(...(current || !items.length ? [] : [pastCard(items, reopen)]));
  }

  /** Back to an earlier conversation: its history read, the live channel on it. */
  function reopen(id: string) {
    startOver();
    state.save({ conversationId: id, ...(state.visitor ? { userId: state.visitor.userId } : {}) });
    state.historyRead = false;
    showPast();
    view.announce('Earlier conversation reopened.');
    view.input.focus();
    void readHistory();
  }

  // ---- business hours and the address for the reply -----------------------------------------

  let hoursTimer: ReturnType<typeof setTimeout> | undefined;

  function showHours() {
    const { info } = state;
    if (!info) return;
    view.setStatus(hoursText(info), !info.online);
    clearTimeout(hoursTimer);
    const wait = info.nextOpenAt ? Date.parse(info.nextOpenAt) - Date.now() : NaN;
    // Read the settings again once the team is back (within a day; a longer stay is a new page load).
    if (!info.online && wait < 86_400_000) {
      // At least 30 s apart: a clock behind the server's must not turn this into a busy loop.
      hoursTimer = setTimeout(() => { api.widget().then((i) => { state.info = i; showHours(); }, () => {}); }, Math.max(wait + 1000, 30_000));
    }
  }

  /** While the team is away: an address for the reply, unless the customer has given one. */
  function askEmail() {
    const conversationId = state.saved.conversationId;
    if (!conversationId || state.saved.email || state.visitor?.email || view.extra.querySelector('#sw-email')) return;
    const next = state.info?.nextOpenAt;
    const card = emailCard(`We're away${next ? ` until ${backAt(next)}` : ' right now'}. Leave your email address and we'll reply to it.`, (email) => {
      const attempt = async () => {
        card.submit.disabled = true;
        try {
          await api.contact(conversationId, email);
          state.save({ email });
          card.done(email);
        } catch (err) {
          const e = asApiError(err);
          if (e.failure === 'refused') card.invalid('Please enter a valid email address, like name@example.com.');
          else fail(e, () => { void attempt(); });
        } finally {
          card.submit.disabled = false;
        }
      };
      void attempt();
    });
    view.extra.replaceChildren(card.form);
    view.scrollDown();
    card.field.focus();
  }

  function ended() {
    fail(new ApiError('closed'), null, { label: 'Start a new conversation', run: () => { startOver(); view.input.focus(); } });
  }

  async function send(text: string, s: Shown, key: string): Promise<Reply | null> {
    state.busy = true;
    view.sendBtn.disabled = true;
    view.setTyping(true);
    try {
      const { visitor } = state;
      const r = await api.send(text, state.saved.conversationId ?? null, visitor, key);
      markFailed(s.el, false);
      if (r.conversationId !== state.saved.conversationId) { state.save({ conversationId: r.conversationId }); showPast(); }
      if (visitor && state.saved.userId !== visitor.userId) state.save({ userId: visitor.userId });
      if (r.message) arrive(r.message, r.metadata?.sources, r.metadata?.format);
      const ticketId = r.metadata?.ticketId;
      if (ticketId) {
        setTicket(ticketId, 'open', r.metadata?.ticketNumber);
        if (state.info && !state.info.online) askEmail(); // the assistant escalated while the team is away
      }
      else if (r.handledBy === 'agent' && state.saved.ticketId) setTicket(state.saved.ticketId, 'in_progress');
      connect();
      return r;
    } catch (err) {
      const e = asApiError(err);
      if (e.failure === 'not-found' && state.saved.conversationId) {
        // The stored conversation is gone: this message starts a new one.
        state.forget();
        return send(text, s, newKey());
      }
      markFailed(s.el, true);
      if (e.failure === 'closed') {
        s.el.remove();
        state.shown.splice(state.shown.indexOf(s), 1);
        view.input.value = text;
        ended();
      } else {
        // The same Idempotency-Key: a retry of a request that did get through stores nothing twice.
        const fatal = e.failure === 'origin' || e.failure === 'key';
        // A refused identity is the site's to fix (or the customer's, signing in again): no retry.
        fail(e, fatal || e.failure === 'identity' || e.failure === 'sign-in' ? null : () => { void send(text, s, key); });
        if (fatal) view.enable(false);
      }
      return null;
    } finally {
      state.busy = false;
      view.sendBtn.disabled = view.input.disabled;
      view.setTyping(false);
    }
  }

  function submitMessage() {
    const text = view.input.value.trim();
    if (!text || state.busy || view.input.disabled) return;
    view.notice.clear();
    view.input.value = '';
    void send(text, local('user', text), newKey());
  }

  // ---- escalation, rating, articles ---------------------------------------------------------

  function showEscalate() {
    view.notice.clear();
    const lastUser = [...state.shown].reverse().find((s) => s.role === 'user')?.content ?? '';
    const card = escalateCard(lastUser, !state.saved.conversationId,
      (reason) => { void escalate(reason, card.form, card.submit); }, () => view.handoff.focus(),
      state.info && !state.info.online ? hoursText(state.info) : null);
    view.extra.replaceChildren(card.form);
    view.scrollDown();
    card.field.focus();
  }

  async function escalate(reason: string, form: HTMLFormElement, submit: HTMLButtonElement) {
    if (state.busy) return;
    // The reason joins the transcript unless it is there already: the first message of a new
    // conversation, or the customer's last message left as it was prefilled.
    const lastUser = [...state.shown].reverse().find((s) => s.role === 'user')?.content;
    const showsReason = !!reason && !!state.saved.conversationId && reason !== lastUser;
    if (!state.saved.conversationId) {
      if (!reason) return;
      // No conversation yet: the reason is its first message.
      form.remove();
      const r = await send(reason, local('user', reason), newKey());
      if (!r) return;
      if (r.metadata?.ticketId) return; // the assistant escalated it already
    }
    const conversationId = state.saved.conversationId!;
    const key = newKey();
    const askedAt = new Date().toISOString();
    const attempt = async (): Promise<void> => {
      state.busy = true;
      submit.disabled = true;
      view.setTyping(true);
      try {
        const r = await api.escalate(conversationId, reason || DEFAULT_REASON, key);
        form.remove();
        // What the customer wrote stays in their transcript, before the assistant's answer.
        if (showsReason && state.saved.reason?.ticketId !== r.ticketId) {
          state.save({ ticketId: r.ticketId, reason: { ticketId: r.ticketId, text: reason, at: askedAt } });
          showReason();
          order();
        }
        // The server stored this text as an assistant message; a live event may have brought it already.
        if (!state.shown.some((s) => s.role === 'assistant' && s.content === r.message)) {
          local('assistant', r.message);
          view.announce(`Assistant says: ${r.message}`);
        }
        setTicket(r.ticketId, 'open', r.ticketNumber);
        if (r.emailRequested) askEmail();
        else view.input.focus();
      } catch (err) {
        fail(err, () => { void attempt(); });
      } finally {
        state.busy = false;
        submit.disabled = false;
        view.setTyping(false);
      }
    };
    await attempt();
  }

  function showRating(ticketId: string) {
    if (view.extra.querySelector('.rating')) return;
    const card = ratingCard((score, comment) => {
      const conversationId = state.saved.conversationId;
      if (!conversationId || card.submit.disabled) return;
      // One key for this rating and its retries: a double click or a retry rates once.
      const key = newKey();
      const attempt = async () => {
        card.submit.disabled = true;
        try {
          await api.rate(conversationId, score, comment, key);
          state.save({ rated: ticketId });
          card.thank();
        } catch (err) {
          fail(err, () => { void attempt(); });
        } finally {
          card.submit.disabled = false;
        }
      };
      void attempt();
    });
    view.extra.replaceChildren(card.form);
    view.scrollDown();
  }

  async function showArticle(s: Source, from: HTMLElement) {
    const pane = view.article.open(s.title, from);
    try {
      const { article } = await api.article(s.articleId);
      pane.show(article);
    } catch (err) {
      pane.failed(failureText(asApiError(err), false));
    }
  }

  // ---- open, close, start -------------------------------------------------------------------

  function open() {
    if (state.isOpen) return;
    view.show();
    state.isOpen = true;
    state.unread = 0;
    label();
    if (state.info && !state.historyRead && state.saved.conversationId) void readHistory();
    if (state.past === null) void loadPast();
    view.scrollDown();
    view.focusFirst();
  }

  function close() {
    if (!state.isOpen) return;
    state.isOpen = false;
    view.hide();
    label();
    view.restoreFocus();
  }

  const onOnline = () => { view.notice.online(); state.live?.retryNow(); };
  window.addEventListener('online', onOnline);

  async function start() {
    try {
      state.info = await api.widget();
    } catch (err) {
      const fatal = err instanceof ApiError && (err.failure === 'origin' || err.failure === 'key');
      fail(err, fatal ? null : () => { void start(); });
      if (fatal) { view.enable(false); view.greeting.hidden = true; }
      return;
    }
    const { info } = state;
    view.applyTheme(info.theme.color);
    position(info.theme.position);
    view.title.textContent = info.theme.title;
    view.greet(info.greeting);
    showHours();
    label();
    if (state.saved.ticketId && state.saved.ticketStatus) setTicket(state.saved.ticketId, state.saved.ticketStatus);
    if (state.isOpen && !state.historyRead) void readHistory();
    if (state.isOpen) void loadPast();
    else if (state.shown.length) connect(); // messages sent before this answer came
  }

  identify(opts.visitor ?? null);
  void start();
  if (opts.open) open();

  return {
    open,
    close,
    identify,
    logout() { identify(null); startOver(); },
    destroy() {
      clearTimeout(agentTypingTimer);
      clearTimeout(hoursTimer);
      state.live?.close();
      window.removeEventListener('online', onOnline);
      view.remove();
    },
  };
}
