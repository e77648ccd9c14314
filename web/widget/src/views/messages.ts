import type { Message, Source } from '../types.ts';
import { h, safeUrl, sr } from './dom.ts';

// A message's bubble: who said it (for screen readers too), the text as a text node, and up to
// three help-centre sources.

export interface BubbleContent {
  role: Message['role'];
  content: string;
  author?: { name: string } | undefined;
  sources?: Source[] | undefined;
}

/** A source without a link of its own opens in the panel, through `openArticle`. */
export function bubble(m: BubbleContent, openArticle: (s: Source, from: HTMLElement) => void): HTMLLIElement {
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
        : h('button', { type: 'button', class: 'link', onclick: (e) => openArticle(s, e.currentTarget as HTMLElement) }, s.title));
    }))));
  }
  return li;
}

export function markFailed(el: HTMLLIElement, failed: boolean) {
  el.classList.toggle('failed', failed);
  el.querySelector('.failed-note')?.remove();
  if (failed) el.append(h('span', { class: 'failed-note' }, 'Not sent'));
}
