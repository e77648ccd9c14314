import { ApiError, createApi, newKey, type Failure, type Message, type Reply, type Source, type WidgetInfo } from './api.ts';
import { palette } from './colour.ts';
import { h, icon, ICONS, sr } from './dom.ts';
import { connectLive, type Live, type LiveEvent } from './live.ts';

declare const __WIDGET_CSS__: string;

export interface Options {
  widgetKey: string;
  apiBase: string;
  /** Open the panel once loaded. */
  open?: boolean;
  /** Overrides the tenant's theme position. */
  position?: 'left' | 'right';
}

export interface Handle { open(): void; close(): void; destroy(): void }

/** What survives a page load, per widget key. */
interface Saved { conversationId?: string; ticketId?: string; ticketStatus?: string; rated?: string }

interface Shown { id: string | null; role: Message['role']; content: string; at: string; el: HTMLLIElement }

const ACTIVE_TICKET = ['open', 'in_progress', 'waiting'];
const DEFAULT_REASON = 'The customer asked to talk to a person.';

const FAILURE_TEXT: Record<Failure, string> = {
  offline: "You're offline. We'll send it as soon as your connection is back.",
  unreachable: "We can't reach the chat service right now. Check your connection and try again.",
  'rate-limited': "You're sending messages faster than we can answer.",
  failing: 'Something went wrong on our side. Please try again.',
  origin: "This chat isn't enabled on this website.",
  key: 'This chat is not available right now.',
  'not-found': 'That could not be found.',
  closed: 'This conversation has ended.',
  refused: 'That could not be sent.',
};

const safeUrl = (url: string | null | undefined) => (url && /^https?:\/\//i.test(url) ? url : null);

export function mount(opts: Options): Handle {
  const api = createApi(opts.apiBase, opts.widgetKey);
  const storeKey = `support-widget:${opts.widgetKey}`;
  const load = (): Saved => { try { return JSON.parse(localStorage.getItem(storeKey) ?? '{}') as Saved; } catch { return {}; } };
  let saved = load();
  const save = (patch: Partial<Saved>) => {
    saved = { ...saved, ...patch };
    try { localStorage.setItem(storeKey, JSON.stringify(saved)); } catch { /* storage off: this page load only */ }
  };
  const forget = () => {
    saved = {};
    try { localStorage.removeItem(storeKey); } catch { /* nothing kept */ }
  };

  let info: WidgetInfo | null = null;
  let isOpen = false;
  let historyRead = false;
  let busy = false;
  let unread = 0;
  let live: Live | null = null;
  let returnFocus: HTMLElement | null = null;
  let retryTimer: ReturnType<typeof setTimeout> | undefined;
  let whenOnline: (() => void) | null = null;
  const shown: Shown[] = [];

  // ---- the DOM ------------------------------------------------------------------------------

  const hostEl = document.createElement('div');
  hostEl.setAttribute('data-support-widget', '');
  const shadow = hostEl.attachShadow({ mode: 'open' });
  if ('adoptedStyleSheets' in Document.prototype) {
    // A constructed sheet: no <style> element, so a CSP without 'unsafe-inline' allows it.
    const sheet = new CSSStyleSheet();
    sheet.replaceSync(__WIDGET_CSS__);
    shadow.adoptedStyleSheets = [sheet];
  } else {
    shadow.append(h('style', null, __WIDGET_CSS__));
  }

  const badge = h('span', { class: 'badge', 'aria-hidden': 'true', hidden: true });
  const chatIcon = icon(ICONS.chat);
  const downIcon = icon(ICONS.down);
  const launcher = h('button', { type: 'button', class: 'launcher', 'aria-expanded': 'false', 'aria-controls': 'sw-panel', onclick: () => (isOpen ? close() : open()) },
    chatIcon, badge);
  const title = h('h2', { id: 'sw-title', tabindex: '-1' }, 'Chat');
  const ticketBar = h('p', { class: 'ticket', hidden: true });
  const greeting = h('li', { class: 'msg msg-assistant' }, h('div', { class: 'bubble' }, sr('Assistant: '), 'Hi! How can I help you today?'));
  const list = h('ol', { class: 'messages', 'aria-label': 'Conversation' }, greeting);
  const typing = h('div', { class: 'typing', hidden: true, role: 'status' }, h('i'), h('i'), h('i'), sr('The assistant is typing'));
  const notice = h('div', { class: 'notice', role: 'alert', hidden: true });
  const extra = h('div');
  const conversationView = h('div', null, list, typing, extra, notice);
  const articleView = h('div', { class: 'article', hidden: true });
  const body = h('div', { class: 'body' }, conversationView, articleView);
  const input = h('textarea', {
    id: 'sw-input', rows: 1, maxlength: 2000, placeholder: 'Type your message…', autocomplete: 'off',
    onkeydown: (e) => {
      const k = e as KeyboardEvent;
      if (k.key === 'Enter' && !k.shiftKey && !k.isComposing) { k.preventDefault(); sendBtn.click(); }
    },
  });
  const sendBtn = h('button', { type: 'submit', class: 'icon-btn send', 'aria-label': 'Send message' }, icon(ICONS.send));
  const composer = h('form', { class: 'composer', onsubmit: (e) => { e.preventDefault(); submitMessage(); } },
    h('label', { class: 'sr', for: 'sw-input' }, 'Message'), input, sendBtn);
  const handoff = h('button', { type: 'button', class: 'link', onclick: () => showEscalate() }, 'Talk to a person');
  const foot = h('div', { class: 'foot' }, handoff);
  const announcer = h('div', { class: 'sr', 'aria-live': 'polite' });
  const closeBtn = h('button', { type: 'button', class: 'icon-btn', 'aria-label': 'Close chat', onclick: () => close() }, icon(ICONS.close));
  const panel = h('div', { id: 'sw-panel', class: 'panel', role: 'dialog', 'aria-labelledby': 'sw-title', hidden: true, onkeydown: (e) => trapFocus(e as KeyboardEvent) },
    h('div', { class: 'head' }, title, closeBtn), ticketBar, body, composer, foot, announcer);
  const root = h('div', {
    class: 'root',
    onkeydown: (e) => { if ((e as KeyboardEvent).key === 'Escape' && isOpen) { e.stopPropagation(); close(); } },
  }, panel, launcher);
  // Below 480 px the panel covers the page: it is modal there, and Tab stays inside it.
  const small = matchMedia('(max-width: 479.98px)');
  const setModal = () => panel.setAttribute('aria-modal', String(small.matches));
  setModal();
  small.addEventListener('change', setModal);
  shadow.append(root);

  // Sets the theme through the CSSOM (no style attribute strings): allowed under a strict CSP.
  function applyTheme(colour?: string) {
    const p = palette(colour);
    root.style.setProperty('--sw-accent', p.accent);
    root.style.setProperty('--sw-on-accent', p.onAccent);
    root.style.setProperty('--sw-accent-text', p.accentText);
  }
  const position = (p: string | undefined) => root.classList.toggle('left', (opts.position ?? p) === 'left');
  applyTheme();
  position(undefined);
  labelLauncher();
  document.body.append(hostEl);

  // ---- helpers ------------------------------------------------------------------------------

  function trapFocus(e: KeyboardEvent) {
    if (e.key !== 'Tab' || !small.matches) return;
    const focusable = [...panel.querySelectorAll<HTMLElement>('button, [href], textarea, input, [tabindex]:not([tabindex="-1"])')]
      .filter((el) => !(el as HTMLButtonElement).disabled && el.getClientRects().length > 0);
    const first = focusable[0];
    const last = focusable[focusable.length - 1];
    if (!first || !last) return;
    const active = shadow.activeElement;
    if (e.shiftKey && (active === first || !panel.contains(active))) { e.preventDefault(); last.focus(); }
    else if (!e.shiftKey && active === last) { e.preventDefault(); first.focus(); }
  }

  function labelLauncher() {
    // Until the tenant's settings arrive there is no name to give: "Open chat", not "Open chat chat".
    const name = info ? `${info.theme.title} chat` : 'chat';
    launcher.setAttribute('aria-label', isOpen ? 'Close chat' : unread ? `Open ${name}, ${unread} unread` : `Open ${name}`);
    launcher.setAttribute('aria-expanded', String(isOpen));
    (isOpen ? chatIcon : downIcon).replaceWith(isOpen ? downIcon : chatIcon);
    badge.hidden = unread === 0;
    badge.textContent = String(unread);
  }

  const announce = (text: string) => {
    // Cleared first so that the same words twice are announced twice.
    announcer.textContent = '';
    setTimeout(() => { announcer.textContent = text.length > 300 ? `${text.slice(0, 300)}…` : text; }, 50);
  };

  const scrollDown = () => { body.scrollTop = body.scrollHeight; };

  function setTyping(on: boolean) {
    typing.hidden = !on;
    list.setAttribute('aria-busy', String(on));
    if (on) scrollDown();
  }

  function clearNotice() {
    clearTimeout(retryTimer);
    whenOnline = null;
    notice.hidden = true;
    notice.replaceChildren();
  }

  const asApiError = (err: unknown) => {
    if (err instanceof ApiError) return err;
    console.error('SupportWidget:', err);
    return new ApiError('failing');
  };

  /** What went wrong, in words; a wait the server asked for (Retry-After) is said too. */
  function failureText(e: ApiError, retrying: boolean): string {
    const wait = e.retryAfter ?? 0;
    let text = FAILURE_TEXT[e.failure];
    if (retrying && wait > 0 && (e.failure === 'rate-limited' || e.failure === 'failing')) {
      text += ` We'll try again in ${wait} second${wait === 1 ? '' : 's'}.`;
    } else if (e.failure === 'rate-limited') {
      text += ' Please wait a moment, then try again.';
    }
    return text;
  }

  /** Says what went wrong, with one action; `retry` waits out Retry-After first, and runs by itself then. */
  function fail(err: unknown, retry: (() => void) | null, action?: { label: string; run: () => void }) {
    const e = asApiError(err);
    clearNotice();
    const wait = e.retryAfter ?? 0;
    const children: Node[] = [h('p', null, failureText(e, !!retry && !action))];
    if (action) {
      children.push(h('button', { type: 'button', class: 'btn', onclick: () => { clearNotice(); action.run(); } }, action.label));
    } else if (retry) {
      const again = () => { clearNotice(); retry(); };
      const btn = h('button', { type: 'button', class: 'btn', onclick: again }, 'Try again');
      if (wait > 0) {
        btn.disabled = true;
        retryTimer = setTimeout(again, wait * 1000);
      }
      if (e.failure === 'offline') whenOnline = again;
      children.push(btn);
    }
    notice.replaceChildren(...children);
    notice.hidden = false;
    scrollDown();
    if (e.failure === 'origin') {
      console.error(`SupportWidget: ${location.origin} is not one of this widget's allowed origins (widget.allowedOrigins in the settings).`);
    } else if (e.failure === 'key') {
      console.error('SupportWidget: the widget key was refused; check data-widget-key.');
    }
  }

  /** Everything but reading stops: the chat cannot be used here. */
  function disable() {
    input.disabled = true;
    sendBtn.disabled = true;
    handoff.disabled = true;
  }

  // ---- messages -----------------------------------------------------------------------------

  function bubble(m: { role: Message['role']; content: string; author?: { name: string } | undefined; sources?: Source[] | undefined }): HTMLLIElement {
    const who = m.role === 'user' ? 'You' : m.role === 'agent' ? (m.author?.name || 'Support team') : 'Assistant';
    const li = h('li', { class: `msg msg-${m.role}` },
      m.role === 'agent' ? h('span', { class: 'who' }, `${who} · support team`) : null,
      h('div', { class: 'bubble' }, m.role === 'agent' ? null : sr(`${who}: `), m.content));
    const sources = (m.sources ?? []).filter((s) => s && typeof s.title === 'string').slice(0, 3);
    if (sources.length) {
      li.append(h('div', { class: 'sources' }, 'From our help centre:', h('ul', null, ...sources.map((s) => {
        const url = safeUrl(s.url);
        return h('li', null, url
          ? h('a', { href: url, target: '_blank', rel: 'noopener noreferrer' }, s.title, sr(' (opens in a new tab)'))
          : h('button', { type: 'button', class: 'link', onclick: (e) => showArticle(s, e.currentTarget as HTMLElement) }, s.title));
      }))));
    }
    return li;
  }

  /**
   * Adds a message unless it is there already: by id, or (for what this page sent before the
   * server named it) by role and text. Returns whether it was new.
   */
  function merge(m: Message, sources?: Source[]): boolean {
    if (m.id && shown.some((s) => s.id === m.id)) return false;
    const pending = shown.find((s) => s.id === null && s.role === m.role && s.content === m.content);
    if (pending) { pending.id = m.id; pending.at = m.createdAt; return false; }
    const el = bubble({ role: m.role, content: m.content, author: m.author, sources: sources ?? m.metadata?.sources });
    shown.push({ id: m.id, role: m.role, content: m.content, at: m.createdAt, el });
    list.append(el);
    return true;
  }

  /** Server messages by time, then what this page has not yet seen confirmed. */
  function order() {
    const sorted = [...shown].sort((a, b) => (a.id === null ? 1 : 0) - (b.id === null ? 1 : 0) || (a.at < b.at ? -1 : a.at > b.at ? 1 : 0));
    for (const s of sorted) list.append(s.el);
  }

  /** A message that arrived by itself (live channel or a reply): shown, announced, counted while closed. */
  function arrive(m: Message, sources?: Source[]) {
    if (!merge(m, sources)) return;
    if (m.role !== 'user') {
      announce(`${m.role === 'agent' ? m.author?.name || 'Support team' : 'Assistant'} says: ${m.content}`);
      if (!isOpen) { unread++; labelLauncher(); }
    }
    scrollDown();
  }

  /** A message shown before the server has named it (its id comes with a history read or live event). */
  const local = (role: Message['role'], content: string): Shown => {
    const s: Shown = { id: null, role, content, at: new Date().toISOString(), el: bubble({ role, content }) };
    shown.push(s);
    list.append(s.el);
    scrollDown();
    return s;
  };

  const markFailed = (s: Shown, failed: boolean) => {
    s.el.classList.toggle('failed', failed);
    s.el.querySelector('.failed-note')?.remove();
    if (failed) s.el.append(h('span', { class: 'failed-note' }, 'Not sent'));
  };

  // ---- conversation -------------------------------------------------------------------------

  function setTicket(id: string, status: string) {
    const changed = saved.ticketId !== id || saved.ticketStatus !== status;
    save({ ticketId: id, ticketStatus: status });
    const text = status === 'in_progress' ? 'a person from our team is on it and will reply here.'
      : status === 'resolved' ? 'resolved.' : status === 'closed' ? 'closed.' : 'our team will reply here.';
    ticketBar.replaceChildren('Ticket ', h('strong', null, id), `: ${text}`);
    ticketBar.hidden = false;
    handoff.hidden = ACTIVE_TICKET.includes(status);
    if (changed) announce(`Ticket ${id}: ${text}`);
    if (status === 'resolved' && saved.rated !== id) showRating(id);
    connect();
  }

  function connect() {
    if (live || !info?.liveUrl || !saved.conversationId) return;
    const url = `${info.liveUrl}?widgetKey=${encodeURIComponent(opts.widgetKey)}&conversationId=${encodeURIComponent(saved.conversationId)}`;
    live = connectLive(url, onEvent, () => { void readHistory(); });
  }

  function onEvent(e: LiveEvent) {
    const d = e.data as { conversationId?: string; message?: Message; ticket?: { id?: string; status?: string; conversationId?: string } };
    if (e.type === 'message.created' && d.conversationId === saved.conversationId && d.message?.id) {
      if (d.message.role !== 'user') setTyping(false);
      arrive(d.message);
    } else if ((e.type === 'ticket.updated' || e.type === 'ticket.created' || e.type === 'conversation.escalated') && d.ticket?.id && d.ticket.status) {
      if (d.ticket.conversationId && d.ticket.conversationId !== saved.conversationId) return;
      setTicket(d.ticket.id, d.ticket.status);
    }
  }

  /** The conversation as the server has it; what this page already shows is kept, by id. */
  async function readHistory(): Promise<void> {
    const id = saved.conversationId;
    if (!id) return;
    try {
      const r = await api.conversation(id);
      if (saved.conversationId !== id) return;
      for (const m of r.messages) merge(m);
      order();
      historyRead = true;
      connect();
      if (r.conversation.status === 'closed') ended();
      scrollDown();
    } catch (err) {
      if (err instanceof ApiError && err.failure === 'not-found') { startOver(); return; }
      fail(err, () => { void readHistory(); });
    }
  }

  /** A new conversation: the old one is forgotten here (it stays with the support team). */
  function startOver() {
    live?.close();
    live = null;
    forget();
    for (const s of shown) s.el.remove();
    shown.length = 0;
    extra.replaceChildren();
    ticketBar.hidden = true;
    handoff.hidden = false;
    input.disabled = false;
    sendBtn.disabled = false;
    handoff.disabled = false;
    historyRead = true;
  }

  function ended() {
    fail(new ApiError('closed'), null, { label: 'Start a new conversation', run: () => { startOver(); input.focus(); } });
  }

  async function send(text: string, s: Shown, key: string): Promise<Reply | null> {
    busy = true;
    sendBtn.disabled = true;
    setTyping(true);
    try {
      const r = await api.send(text, saved.conversationId ?? null, key);
      markFailed(s, false);
      if (r.conversationId !== saved.conversationId) save({ conversationId: r.conversationId });
      if (r.message) arrive(r.message, r.metadata?.sources);
      const ticketId = r.metadata?.ticketId;
      if (ticketId) setTicket(ticketId, 'open');
      else if (r.handledBy === 'agent' && saved.ticketId) setTicket(saved.ticketId, 'in_progress');
      connect();
      return r;
    } catch (err) {
      const e = asApiError(err);
      if (e.failure === 'not-found' && saved.conversationId) {
        // The stored conversation is gone: this message starts a new one.
        forget();
        return send(text, s, newKey());
      }
      markFailed(s, true);
      if (e.failure === 'closed') {
        s.el.remove();
        shown.splice(shown.indexOf(s), 1);
        input.value = text;
        ended();
      } else {
        // The same Idempotency-Key: a retry of a request that did get through stores nothing twice.
        fail(e, e.failure === 'origin' || e.failure === 'key' ? null : () => { void send(text, s, key); });
        if (e.failure === 'origin' || e.failure === 'key') disable();
      }
      return null;
    } finally {
      busy = false;
      sendBtn.disabled = input.disabled;
      setTyping(false);
    }
  }

  function submitMessage() {
    const text = input.value.trim();
    if (!text || busy || input.disabled) return;
    clearNotice();
    input.value = '';
    void send(text, local('user', text), newKey());
  }

  // ---- escalation, rating, articles ---------------------------------------------------------

  function showEscalate() {
    clearNotice();
    const lastUser = [...shown].reverse().find((s) => s.role === 'user')?.content ?? '';
    const field = h('textarea', { id: 'sw-reason', maxlength: 500, rows: 3, required: !saved.conversationId });
    field.value = lastUser.slice(0, 500);
    const submit = h('button', { type: 'submit', class: 'btn btn-primary' }, 'Request a person');
    const form = h('form', {
      class: 'card',
      onsubmit: (e) => { e.preventDefault(); void escalate(field.value.trim(), form, submit); },
    },
    h('label', { class: 'title', for: 'sw-reason' }, 'What do you need help with?'),
    h('p', { class: 'hint', id: 'sw-reason-hint' }, 'A person from our team will read this conversation and reply here.'),
    field,
    h('div', { class: 'row' }, submit, h('button', { type: 'button', class: 'btn', onclick: () => { form.remove(); handoff.focus(); } }, 'Cancel')));
    field.setAttribute('aria-describedby', 'sw-reason-hint');
    extra.replaceChildren(form);
    scrollDown();
    field.focus();
  }

  async function escalate(reason: string, form: HTMLFormElement, submit: HTMLButtonElement) {
    if (busy) return;
    if (!saved.conversationId) {
      if (!reason) return;
      // No conversation yet: the reason is its first message.
      form.remove();
      const r = await send(reason, local('user', reason), newKey());
      if (!r) return;
      if (r.metadata?.ticketId) return; // the assistant escalated it already
    }
    const conversationId = saved.conversationId!;
    const key = newKey();
    const attempt = async (): Promise<void> => {
      busy = true;
      submit.disabled = true;
      setTyping(true);
      try {
        const r = await api.escalate(conversationId, reason || DEFAULT_REASON, key);
        form.remove();
        // The server stored this text as an assistant message; a live event may have brought it already.
        if (!shown.some((s) => s.role === 'assistant' && s.content === r.message)) {
          local('assistant', r.message);
          announce(`Assistant says: ${r.message}`);
        }
        setTicket(r.ticketId, 'open');
        input.focus();
      } catch (err) {
        fail(err, () => { void attempt(); });
      } finally {
        busy = false;
        submit.disabled = false;
        setTyping(false);
      }
    };
    await attempt();
  }

  function showRating(ticketId: string) {
    if (extra.querySelector('.rating')) return;
    let score = 0;
    const stars = h('div', { class: 'stars' }, ...[1, 2, 3, 4, 5].map((n) =>
      h('label', null, h('input', { type: 'radio', name: 'sw-score', value: n, required: true, onchange: () => { score = n; } }),
        h('span', null, String(n), sr(n === 1 ? ' (poor)' : n === 5 ? ' (excellent)' : '')))));
    const comment = h('textarea', { id: 'sw-comment', maxlength: 1000, rows: 2 });
    const submit = h('button', { type: 'submit', class: 'btn btn-primary' }, 'Send rating');
    const form = h('form', {
      class: 'card rating',
      onsubmit: (e) => {
        e.preventDefault();
        if (!score || !saved.conversationId) return;
        const conversationId = saved.conversationId;
        const attempt = async () => {
          submit.disabled = true;
          try {
            await api.rate(conversationId, score, comment.value.trim());
            save({ rated: ticketId });
            const thanks = h('p', { class: 'card', tabindex: '-1' }, 'Thank you for your rating!');
            form.replaceWith(thanks);
            thanks.focus();
          } catch (err) {
            fail(err, () => { void attempt(); });
          } finally {
            submit.disabled = false;
          }
        };
        void attempt();
      },
    },
    h('fieldset', null, h('legend', null, 'How would you rate the help you got? (1 = poor, 5 = excellent)'), stars),
    h('label', { class: 'sr', for: 'sw-comment' }, 'Comment (optional)'),
    comment,
    h('div', { class: 'row' }, submit));
    comment.setAttribute('placeholder', 'Anything to add? (optional)');
    extra.replaceChildren(form);
    scrollDown();
  }

  async function showArticle(s: Source, from: HTMLElement) {
    const back = h('button', { type: 'button', class: 'btn', onclick: () => { articleView.hidden = true; conversationView.hidden = false; from.focus(); } },
      'Back to the conversation');
    const heading = h('h3', { tabindex: '-1' }, s.title);
    articleView.replaceChildren(back, heading, h('p', null, 'Loading…'));
    conversationView.hidden = true;
    articleView.hidden = false;
    heading.focus();
    try {
      const { article } = await api.article(s.articleId);
      heading.textContent = article.title;
      // The service reduces the Markdown to plain-text blocks with its parser; each is shown as a text node.
      const blocks = Array.isArray(article.blocks) ? article.blocks : [];
      const paragraphs = blocks.filter((b) => typeof b === 'string' && b.trim()).map((b) => h('p', null, b));
      articleView.replaceChildren(back, heading, ...paragraphs);
      const url = safeUrl(article.url);
      if (url) articleView.append(h('p', null, h('a', { href: url, target: '_blank', rel: 'noopener noreferrer' }, 'Read it on our help centre', sr(' (opens in a new tab)'))));
    } catch (err) {
      articleView.replaceChildren(back, heading, h('p', { role: 'alert' }, `This article could not be opened. ${failureText(asApiError(err), false)}`));
    }
  }

  // ---- open, close, start -------------------------------------------------------------------

  function open() {
    if (isOpen) return;
    const active = document.activeElement;
    returnFocus = active === hostEl ? launcher : active instanceof HTMLElement ? active : null;
    isOpen = true;
    unread = 0;
    panel.hidden = false;
    root.classList.add('open');
    labelLauncher();
    if (info && !historyRead && saved.conversationId) void readHistory();
    scrollDown();
    (input.disabled ? title : input).focus();
  }

  function close() {
    if (!isOpen) return;
    isOpen = false;
    panel.hidden = true;
    root.classList.remove('open');
    labelLauncher();
    // Back to where the customer was, if focus was with the widget (not if they clicked elsewhere).
    const focusIn = document.activeElement === hostEl || document.activeElement === document.body;
    if (focusIn) (returnFocus?.isConnected ? returnFocus : launcher).focus();
  }

  const onOnline = () => { whenOnline?.(); live?.retryNow(); };
  window.addEventListener('online', onOnline);

  async function start() {
    try {
      info = await api.widget();
    } catch (err) {
      const fatal = err instanceof ApiError && (err.failure === 'origin' || err.failure === 'key');
      fail(err, fatal ? null : () => { void start(); });
      if (fatal) { disable(); greeting.hidden = true; }
      return;
    }
    applyTheme(info.theme.color);
    position(info.theme.position);
    title.textContent = info.theme.title;
    greeting.replaceChildren(h('div', { class: 'bubble' }, sr('Assistant: '), info.greeting));
    labelLauncher();
    if (saved.ticketId && saved.ticketStatus) setTicket(saved.ticketId, saved.ticketStatus);
    if (isOpen && !historyRead) void readHistory();
    else if (shown.length) connect(); // messages sent before this answer came
  }

  void start();
  if (opts.open) open();

  return {
    open,
    close,
    destroy() {
      live?.close();
      clearNotice();
      window.removeEventListener('online', onOnline);
      small.removeEventListener('change', setModal);
      hostEl.remove();
    },
  };
}
