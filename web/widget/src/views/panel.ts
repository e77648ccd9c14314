import { palette } from '../colour.ts';
import { articleView } from './article.ts';
import { h, icon, ICONS, sr } from './dom.ts';
import { createNotice } from './notice.ts';
import { pastView } from './past.ts';

// The launcher and the chat panel, in a shadow root of their own at the end of the page's body.

declare const __WIDGET_CSS__: string;

export interface PanelActions {
  toggle(): void;
  close(): void;
  submit(): void;
  handoff(): void;
  /** A signed-in visitor's list of conversations. */
  past(from: HTMLElement): void;
}

export type Panel = ReturnType<typeof buildPanel>;

/** The widget's sheet in its shadow root. */
function adoptStyles(shadow: ShadowRoot) {
  if ('adoptedStyleSheets' in Document.prototype) {
    // A constructed sheet: no <style> element, so a CSP without 'unsafe-inline' allows it.
    const sheet = new CSSStyleSheet();
    sheet.replaceSync(__WIDGET_CSS__);
    shadow.adoptedStyleSheets = [sheet];
  } else {
    shadow.append(h('style', null, __WIDGET_CSS__));
  }
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

/** The round button that opens and closes the panel, with its unread badge. */
function buildLauncher(actions: PanelActions) {
  const badge = h('span', { class: 'badge', 'aria-hidden': 'true', hidden: true });
  const chatIcon = icon(ICONS.chat);
  const downIcon = icon(ICONS.down);
  const launcher = h(
    'button',
    {
      type: 'button',
      class: 'launcher',
      'aria-expanded': 'false',
      'aria-controls': 'sw-panel',
      onclick: () => actions.toggle(),
    },
    chatIcon,
    badge,
  );
  return { launcher, badge, chatIcon, downIcon };
}

/** The message box and its send button; Enter sends, Shift+Enter starts a new line. */
function buildComposer(actions: PanelActions) {
  const input = h('textarea', {
    id: 'sw-input',
    rows: 1,
    maxlength: 2000,
    placeholder: 'Type your message…',
    autocomplete: 'off',
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

/** The launcher's theme, side and label. */
function launcherView(parts: { root: HTMLElement } & ReturnType<typeof buildLauncher>) {
  const { root, launcher, badge, chatIcon, downIcon } = parts;
  return {
    /** Sets the theme through the CSSOM (no style attribute strings): allowed under a strict CSP. */
    applyTheme(colour?: string) {
      const p = palette(colour);
      root.style.setProperty('--sw-accent', p.accent);
      root.style.setProperty('--sw-on-accent', p.onAccent);
      root.style.setProperty('--sw-accent-text', p.accentText);
    },

    position(left: boolean) {
      root.classList.toggle('left', left);
    },

    /** `name`: the tenant's title, once known. */
    labelLauncher(name: string | undefined, isOpen: boolean, unread: number) {
      // Until the tenant's settings arrive there is no name to give: "Open chat", not "Open chat chat".
      const what = name ? `${name} chat` : 'chat';
      launcher.setAttribute(
        'aria-label',
        isOpen ? 'Close chat' : unread ? `Open ${what}, ${unread} unread` : `Open ${what}`,
      );
      launcher.setAttribute('aria-expanded', String(isOpen));
      (isOpen ? chatIcon : downIcon).replaceWith(isOpen ? downIcon : chatIcon);
      badge.hidden = unread === 0;
      badge.textContent = String(unread);
    },
  };
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

export function buildPanel(actions: PanelActions) {
  const hostEl = document.createElement('div');
  hostEl.setAttribute('data-support-widget', '');
  const shadow = hostEl.attachShadow({ mode: 'open' });
  adoptStyles(shadow);

  const launcherParts = buildLauncher(actions);
  const { launcher } = launcherParts;
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
  // Only the launcher is on the page until the first open: a page that never opens the chat lays
  // out and styles no panel (the panel is built, kept out of the tree, and put in on first show).
  const root = h(
    'div',
    {
      class: 'root',
      onkeydown: (e) => {
        if ((e as KeyboardEvent).key === 'Escape' && !panel.hidden) {
          e.stopPropagation();
          actions.close();
        }
      },
    },
    launcher,
  );
  // Below 480 px the panel covers the page: it is modal there, and Tab stays inside it.
  const small = matchMedia('(max-width: 479.98px)');
  const setModal = () => panel.setAttribute('aria-modal', String(small.matches));
  setModal();
  small.addEventListener('change', setModal);
  shadow.append(root);

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
    ...launcherView({ root, ...launcherParts }),
    ...talkView({ ...conversation, ...composerParts, announcer, status, ticketBar, handoff, scrollDown }),

    /** The open panel takes focus from the page, and remembers where it was. */
    show() {
      const active = document.activeElement;
      returnFocus = active === hostEl ? launcher : active instanceof HTMLElement ? active : null;
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
      hostEl.remove();
    },
  };
  view.applyTheme();
  document.body.append(hostEl);
  return view;
}
