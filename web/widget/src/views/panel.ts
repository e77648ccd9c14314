import { articleView } from './article.ts';
import { h, icon, ICONS, sr } from './dom.ts';
import { adoptStyles, type Launcher } from './launcher.ts';
import { createNotice } from './notice.ts';
import { pastView } from './past.ts';

// The chat panel, beside the launcher in its shadow root. Built on first use (see lazyPanel): a
// page whose chat stays closed builds, styles and lays out none of it.

declare const __WIDGET_PANEL_CSS__: string;

export interface PanelActions {
  close(): void;
  submit(): void;
  /** The customer typed in the message box. */
  typed(): void;
  handoff(): void;
  /** A signed-in visitor's list of conversations. */
  past(from: HTMLElement): void;
}

export type Panel = ReturnType<typeof buildPanel>;

/** The panel, built the first time it is asked for; `built()` says whether it has been (without building it). */
export interface PanelRef {
  (): Panel;
  built(): boolean;
}

/** The conversation, an article or the past conversations, in the scrolling body. */
function buildConversation() {
  const greeting = h(
    'li',
    { class: 'msg msg-assistant' },
    h('div', { class: 'bubble' }, sr('Assistant: '), 'Hi! How can I help you today?'),
  );
  const list = h('ol', { class: 'messages', 'aria-label': 'Conversation' }, greeting);
  const typing = h(
    'div',
    { class: 'typing', hidden: true, role: 'status' },
    h('i'),
    h('i'),
    h('i'),
    sr('The assistant is typing'),
  );
  // A person of the team typing a reply, named as their messages are.
  const agentWho = h('span', { class: 'who' });
  const agentTyping = h(
    'div',
    { class: 'agent-typing', hidden: true, role: 'status' },
    h('span', { class: 'agent-dots', 'aria-hidden': 'true' }, h('i'), h('i'), h('i')),
    agentWho,
  );
  const notice = createNotice();
  const extra = h('div');
  const pastCard = h('div');
  const conversationView = h('div', null, pastCard, list, typing, agentTyping, extra, notice.el);
  const article = articleView(conversationView);
  const past = pastView(conversationView);
  const body = h('div', { class: 'body' }, conversationView, article.el, past.el);
  return { greeting, list, typing, agentWho, agentTyping, notice, extra, pastCard, article, past, body };
}

/** Below 480 px, where the panel is modal, Tab goes round inside it. */
function trapFocus(e: KeyboardEvent, panel: HTMLElement, shadow: ShadowRoot, small: MediaQueryList) {
  if (e.key !== 'Tab' || !small.matches) return;
  const focusable = [
    ...panel.querySelectorAll<HTMLElement>('button, [href], textarea, input, [tabindex]:not([tabindex="-1"])'),
  ].filter((el) => !(el as HTMLButtonElement).disabled && el.getClientRects().length > 0);
  const first = focusable[0];
  const last = focusable[focusable.length - 1];
  if (!first || !last) return;
  const active = shadow.activeElement;
  if (e.shiftKey && (active === first || !panel.contains(active))) {
    e.preventDefault();
    last.focus();
  } else if (!e.shiftKey && active === last) {
    e.preventDefault();
    first.focus();
  }
}

/** The message box and its send button; Enter sends, Shift+Enter starts a new line. */
function buildComposer(actions: PanelActions) {
  const input = h('textarea', {
    id: 'sw-input',
    rows: 1,
    maxlength: 2000,
    placeholder: 'Type your message…',
    autocomplete: 'off',
    oninput: () => actions.typed(),
    onkeydown: (e) => {
      const k = e as KeyboardEvent;
      if (k.key === 'Enter' && !k.shiftKey && !k.isComposing) {
        k.preventDefault();
        sendBtn.click();
      }
    },
  });
  const sendBtn = h(
    'button',
    { type: 'submit', class: 'icon-btn send', 'aria-label': 'Send message' },
    icon(ICONS.send),
  );
  const composer = h(
    'form',
    {
      class: 'composer',
      onsubmit: (e) => {
        e.preventDefault();
        actions.submit();
      },
    },
    h('label', { class: 'sr', for: 'sw-input' }, 'Message'),
    input,
    sendBtn,
  );
  return { input, sendBtn, composer };
}

/** What the panel says: announcements, typing, the team's status, the greeting, the ticket bar, and whether it can be used. */
function talkView(
  parts: ReturnType<typeof buildConversation> &
    ReturnType<typeof buildComposer> & {
      announcer: HTMLElement;
      status: HTMLElement;
      ticketBar: HTMLElement;
      handoff: HTMLButtonElement;
      scrollDown: () => void;
    },
) {
  const { announcer, agentWho, agentTyping, typing, list, status, greeting, ticketBar, handoff, input, sendBtn } =
    parts;
  const { scrollDown } = parts;
  return {
    announce(text: string) {
      // Cleared first so that the same words twice are announced twice.
      announcer.textContent = '';
      setTimeout(() => {
        announcer.textContent = text.length > 300 ? `${text.slice(0, 300)}…` : text;
      }, 50);
    },

    /** `name` of the agent typing a reply, or null when nobody is. */
    setAgentTyping(name: string | null) {
      const on = name !== null;
      if (on) agentWho.textContent = `${name || 'Support team'} is typing…`;
      if (agentTyping.hidden === !on) return;
      agentTyping.hidden = !on;
      if (on) scrollDown();
    },

    setTyping(on: boolean) {
      typing.hidden = !on;
      list.setAttribute('aria-busy', String(on));
      if (on) scrollDown();
    },

    /** "Our team replies …" or "We're away …"; null hides it. */
    setStatus(text: string | null, away = false) {
      status.hidden = !text;
      status.textContent = text ?? '';
      status.classList.toggle('away', away);
    },

    greet(text: string) {
      greeting.replaceChildren(h('div', { class: 'bubble' }, sr('Assistant: '), text));
    },

    /** The ticket bar, naming the ticket by its number; while a person is on the ticket (`active`) there is no asking for one. */
    showTicket(id: string | null, name: string | null = null, text = '', active = false) {
      if (id)
        ticketBar.replaceChildren(
          ...(name ? ['Ticket ', h('strong', null, name), `: ${text}`] : [`Your request: ${text}`]),
        );
      ticketBar.hidden = !id;
      handoff.hidden = active;
    },

    /** `false`: everything but reading stops, the chat cannot be used here (`why` in the empty message box). */
    enable(on: boolean, why = 'Type your message…') {
      input.placeholder = on ? 'Type your message…' : why;
      input.disabled = !on;
      sendBtn.disabled = !on;
      handoff.disabled = !on;
    },
  };
}

export function buildPanel(shell: Launcher, actions: PanelActions) {
  const { hostEl, shadow, root, launcher } = shell;
  adoptStyles(shadow, __WIDGET_PANEL_CSS__);

  const title = h('h2', { id: 'sw-title', tabindex: '-1' }, 'Chat');
  // Whether the team is in: a sentence under the title, read with the dialog's description.
  const status = h('p', { class: 'status', id: 'sw-status', hidden: true });
  const ticketBar = h('p', { class: 'ticket', hidden: true });
  const conversation = buildConversation();
  const { greeting, list, notice, extra, pastCard, article, past, body } = conversation;
  const composerParts = buildComposer(actions);
  const { input, sendBtn, composer } = composerParts;
  const handoff = h('button', { type: 'button', class: 'link', onclick: () => actions.handoff() }, 'Talk to a person');
  const pastLink: HTMLButtonElement = h(
    'button',
    { type: 'button', class: 'link', hidden: true, onclick: () => actions.past(pastLink) },
    'Your conversations',
  );
  const foot = h('div', { class: 'foot' }, handoff, pastLink);
  const announcer = h('div', { class: 'sr', 'aria-live': 'polite' });
  const closeBtn = h(
    'button',
    { type: 'button', class: 'icon-btn', 'aria-label': 'Close chat', onclick: () => actions.close() },
    icon(ICONS.close),
  );
  const panel: HTMLDivElement = h(
    'div',
    {
      id: 'sw-panel',
      class: 'panel',
      role: 'dialog',
      'aria-labelledby': 'sw-title',
      'aria-describedby': 'sw-status',
      hidden: true,
      onkeydown: (e) => trapFocus(e as KeyboardEvent, panel, shadow, small),
    },
    h('div', { class: 'head' }, h('div', null, title, status), closeBtn),
    ticketBar,
    body,
    composer,
    foot,
    announcer,
  );
  // Below 480 px the panel covers the page: it is modal there, and Tab stays inside it.
  const small = matchMedia('(max-width: 479.98px)');
  const setModal = () => panel.setAttribute('aria-modal', String(small.matches));
  setModal();
  small.addEventListener('change', setModal);

  const scrollDown = () => {
    body.scrollTop = body.scrollHeight;
  };
  let returnFocus: HTMLElement | null = null;

  const view = {
    title,
    greeting,
    list,
    notice,
    extra,
    article,
    past,
    pastCard,
    pastLink,
    input,
    sendBtn,
    handoff,
    scrollDown,
    ...talkView({ ...conversation, ...composerParts, announcer, status, ticketBar, handoff, scrollDown }),

    /** The open panel takes focus from the page, and remembers where it was. */
    show() {
      const active = document.activeElement;
      returnFocus = active === hostEl ? launcher : active instanceof HTMLElement ? active : null;
      // Put in the tree on first show (built ahead, on the launcher's hover or focus, it waits out of it).
      if (!panel.isConnected) root.prepend(panel);
      panel.hidden = false;
      root.classList.add('open');
    },

    focusFirst() {
      (input.disabled ? title : input).focus();
    },

    hide() {
      panel.hidden = true;
      root.classList.remove('open');
    },

    /** Back to where the customer was, if focus was with the widget (not if they clicked elsewhere). */
    restoreFocus() {
      const focusIn = document.activeElement === hostEl || document.activeElement === document.body;
      if (focusIn) (returnFocus?.isConnected ? returnFocus : launcher).focus();
    },

    remove() {
      notice.clear();
      small.removeEventListener('change', setModal);
      panel.remove();
    },
  };
  return view;
}

/** The panel built on first use; `onBuilt` brings a new one up to date with what the page knows by then. */
export function lazyPanel(shell: Launcher, actions: PanelActions, onBuilt: (view: Panel) => void): PanelRef {
  let view: Panel | null = null;
  const ref = () => {
    if (!view) {
      view = buildPanel(shell, actions);
      onBuilt(view);
    }
    return view;
  };
  return Object.assign(ref, { built: () => view !== null });
}
