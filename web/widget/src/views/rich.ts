import type { Source, TextFormat } from '../types.ts';
import { h, safeUrl, sr } from './dom.ts';

// A knowledge answer's text with its article's formatting: the service sends the answer as plain
// text and, beside it, the phrases that are bold, emphasised or links in the article and the lines
// that are list items (metadata.format). They become elements here (strong, em, a, ul/li), built
// with the DOM API around text nodes: no HTML string is ever parsed.

/** The answer without its last paragraph when that only names a source listed under it (the link is shown once). */
export function withoutSourceLine(content: string, sources: Source[]): string {
  const cut = content.lastIndexOf('\n\n');
  if (cut < 0) return content;
  const last = content.slice(cut + 2).trim();
  const named = sources.some((s) => last === s.title || (s.url && last === `${s.title}: ${s.url}`));
  return named ? content.slice(0, cut) : content;
}

interface Span {
  start: number;
  end: number;
  make: (text: string) => HTMLElement;
}

/** One line's text, its formatted phrases as elements (the first, longest match wins where two overlap). */
function inline(line: string, format: TextFormat): (Node | string)[] {
  const spans: Span[] = [];
  const find = (phrase: string, make: Span['make']) => {
    if (!phrase) return;
    for (let at = line.indexOf(phrase); at >= 0; at = line.indexOf(phrase, at + phrase.length))
      spans.push({ start: at, end: at + phrase.length, make });
  };
  for (const l of format.links ?? []) {
    const url = safeUrl(l.url);
    if (url)
      find(l.text, (t) =>
        h('a', { href: url, target: '_blank', rel: 'noopener noreferrer' }, t, sr(' (opens in a new tab)')),
      );
  }
  for (const t of format.strong ?? []) find(t, (x) => h('strong', null, x));
  for (const t of format.emphasis ?? []) find(t, (x) => h('em', null, x));
  spans.sort((a, b) => a.start - b.start || b.end - b.start - (a.end - a.start));
  const out: (Node | string)[] = [];
  let pos = 0;
  for (const s of spans) {
    if (s.start < pos) continue; // overlaps one already placed
    if (s.start > pos) out.push(line.slice(pos, s.start));
    out.push(s.make(line.slice(s.start, s.end)));
    pos = s.end;
  }
  if (pos < line.length) out.push(line.slice(pos));
  return out;
}

/** The answer as paragraphs and lists of formatted text. */
export function formatted(content: string, format: TextFormat): HTMLElement[] {
  const items = new Set(format.listItems ?? []);
  const out: HTMLElement[] = [];
  let list: HTMLUListElement | null = null;
  for (const raw of content.split('\n')) {
    const line = raw.trim();
    if (!line) {
      list = null;
      continue;
    }
    if (items.has(line)) {
      if (!list) {
        list = h('ul');
        out.push(list);
      }
      list.append(h('li', null, ...inline(line, format)));
    } else {
      list = null;
      out.push(h('p', null, ...inline(line, format)));
    }
  }
  return out;
}
