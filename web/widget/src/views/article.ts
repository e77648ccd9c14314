import type { Article } from '../types.ts';
import { h, safeUrl, sr } from './dom.ts';

// A help-centre article read inside the panel, in place of the conversation, with a way back.

export type ArticleView = ReturnType<typeof articleView>;

export function articleView(conversationView: HTMLElement) {
  const el = h('div', { class: 'article', hidden: true });

  /** Shows the pane with `title` while the article loads; focus goes back to `from` on the way out. */
  function open(title: string, from: HTMLElement) {
    const back = h(
      'button',
      {
        type: 'button',
        class: 'btn',
        onclick: () => {
          el.hidden = true;
          conversationView.hidden = false;
          from.focus();
        },
      },
      'Back to the conversation',
    );
    const heading = h('h3', { tabindex: '-1' }, title);
    el.replaceChildren(back, heading, h('p', null, 'Loading…'));
    conversationView.hidden = true;
    el.hidden = false;
    heading.focus();
    return {
      show(article: Article) {
        heading.textContent = article.title;
        // The service reduces the Markdown to plain-text blocks with its parser; each is shown as a text node.
        const blocks = Array.isArray(article.blocks) ? article.blocks : [];
        const paragraphs = blocks.filter((b) => typeof b === 'string' && b.trim()).map((b) => h('p', null, b));
        el.replaceChildren(back, heading, ...paragraphs);
        const url = safeUrl(article.url);
        if (url)
          el.append(
            h(
              'p',
              null,
              h(
                'a',
                { href: url, target: '_blank', rel: 'noopener noreferrer' },
                'Read it on our help centre',
                sr(' (opens in a new tab)'),
              ),
            ),
          );
      },
      failed(reason: string) {
        el.replaceChildren(back, heading, h('p', { role: 'alert' }, `This article could not be opened. ${reason}`));
      },
    };
  }

  return { el, open };
}
