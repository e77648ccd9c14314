import type { Message, Source, TextFormat } from '../types.ts';
import { h, safeUrl, sr } from './dom.ts';
import { formatted, withoutSourceLine } from './rich.ts';

// A message's bubble: who said it (for screen readers too), the text as a text node, and up to
// three help-centre sources.

export interface BubbleContent {
  role: Message['role'];
  content: string;
  /** A line above the text saying what it was (the reason given when asking for a person). */
  note?: string | undefined;
  author?: { name: string } | undefined;
  sources?: Source[] | undefined;
  /** A knowledge answer's formatting (bold, emphasis, links, list items), shown as elements. */
  format?: TextFormat | undefined;
}

/** A source without a link of its own opens in the panel, through `openArticle`. */
export function bubble(m: BubbleContent, openArticle: (s: Source, from: HTMLElement) => void): HTMLLIElement {
  const who = m.role === 'user' ? 'You' : m.role === 'agent' ? m.author?.name || 'Support team' : 'Assistant';
  const sources = (m.sources ?? []).filter((s) => s && typeof s.title === 'string').slice(0, 3);
  // A knowledge answer ends with its article's title and link: the list under it shows them once.
  const text = m.role === 'assistant' && sources.length ? withoutSourceLine(m.content, sources) : m.content;
  const body = m.role === 'assistant' && m.format ? formatted(text, m.format) : [text];
  const li = h(
    'li',
    { class: `msg msg-${m.role}` },
    m.role === 'agent' ? h('span', { class: 'who' }, `${who} · support team`) : null,
    m.note ? h('span', { class: 'who' }, m.note) : null,
    h(
      'div',
      { class: `bubble${m.role === 'assistant' && m.format ? ' rich' : ''}` },
      m.role === 'agent' ? null : sr(`${who}: `),
      ...body,
    ),
  );
  if (sources.length) {
    li.append(
      h(
        'div',
        { class: 'sources' },
        'From our help centre:',
        h(
          'ul',
          null,
          ...sources.map((s) => {
            const url = safeUrl(s.url);
            return h(
              'li',
              null,
              url
                ? h(
                    'a',
                    { href: url, target: '_blank', rel: 'noopener noreferrer' },
                    s.title,
                    sr(' (opens in a new tab)'),
                  )
                : h(
                    'button',
                    { type: 'button', class: 'link', onclick: (e) => openArticle(s, e.currentTarget as HTMLElement) },
                    s.title,
                  ),
            );
          }),
        ),
      ),
    );
  }
  return li;
}

export function markFailed(el: HTMLLIElement, failed: boolean) {
  el.classList.toggle('failed', failed);
  el.querySelector('.failed-note')?.remove();
  if (failed) el.append(h('span', { class: 'failed-note' }, 'Not sent'));
}

/** A message sent while the team has the conversation: no assistant answers it, a person will. */
export function markHeld(el: HTMLLIElement) {
  if (el.querySelector('.held-note')) return;
  el.append(h('span', { class: 'held-note' }, 'Sent to our team: a person will answer here.'));
}
