import type { OwnConversations } from '../types.ts';
import { h, sr } from './dom.ts';

// A signed-in visitor's conversations (on any device): a list to reopen one, shown in place of the
// conversation like an article, or as a short card when no conversation is open on this page.

type Item = OwnConversations['items'][number];

const STATUS: Record<Item['status'], string> = { active: 'Open', escalated: 'With our team', closed: 'Ended' };

const when = (iso: string) => new Date(iso).toLocaleString(undefined, { dateStyle: 'medium', timeStyle: 'short' });
/** Widget conversations by time and status; an email thread by its subject too (its own title). */
const label = (c: Item) =>
  `${c.channel === 'email' ? `Email “${c.title}” · ` : ''}${when(c.updatedAt)} · ${STATUS[c.status]}`;

/** One button per conversation: its last activity and status (their titles are the visitor's own name). */
export function pastList(items: Item[], currentId: string | undefined, onPick: (id: string) => void) {
  return h(
    'ul',
    { class: 'past' },
    ...items.map((c) =>
      h(
        'li',
        null,
        c.id === currentId
          ? h('span', { class: 'past-item', 'aria-current': 'true' }, label(c), h('small', null, ' (open now)'))
          : h(
              'button',
              { type: 'button', class: 'past-item', onclick: () => onPick(c.id) },
              sr('Reopen the conversation of '),
              label(c),
            ),
      ),
    ),
  );
}

export type PastView = ReturnType<typeof pastView>;

export function pastView(conversationView: HTMLElement) {
  const el = h('div', { class: 'pane', hidden: true });
  const back = (to: HTMLElement | null) => {
    el.hidden = true;
    conversationView.hidden = false;
    to?.focus();
  };

  /** The whole list; `from` gets focus back when the visitor returns without choosing. */
  function open(
    items: Item[],
    currentId: string | undefined,
    onPick: (id: string) => void,
    onNew: () => void,
    from: HTMLElement,
  ) {
    const heading = h('h3', { tabindex: '-1' }, 'Your conversations');
    el.replaceChildren(
      h('button', { type: 'button', class: 'btn', onclick: () => back(from) }, 'Back to the conversation'),
      heading,
      items.length
        ? pastList(items, currentId, (id) => {
            back(null);
            onPick(id);
          })
        : h('p', null, 'No earlier conversation.'),
      h(
        'button',
        {
          type: 'button',
          class: 'btn btn-primary',
          onclick: () => {
            back(null);
            onNew();
          },
        },
        'Start a new conversation',
      ),
    );
    conversationView.hidden = true;
    el.hidden = false;
    heading.focus();
  }

  return { el, open, close: () => back(null) };
}

/** The short form, above a fresh conversation: the latest few, to pick up where the visitor left off. */
export function pastCard(items: Item[], onPick: (id: string) => void) {
  return h(
    'section',
    { class: 'pastcard', 'aria-labelledby': 'sw-past-h' },
    h(
      'div',
      { class: 'card' },
      h('h3', { class: 'title', id: 'sw-past-h' }, 'Your earlier conversations'),
      pastList(items.slice(0, 3), undefined, onPick),
    ),
  );
}
