// HTML's elements as a reader of text sees them: the ones that start and end a line, the ones
// whose content is never shown, and table cells. Read by the Markdown reader and the mail reader.

/** Elements that start and end a line of text (`br` is not one: it ends a line only). */
export const BLOCK = new Set([
  'address',
  'article',
  'aside',
  'blockquote',
  'caption',
  'dd',
  'details',
  'div',
  'dl',
  'dt',
  'figcaption',
  'figure',
  'footer',
  'form',
  'h1',
  'h2',
  'h3',
  'h4',
  'h5',
  'h6',
  'header',
  'hr',
  'li',
  'main',
  'nav',
  'ol',
  'p',
  'pre',
  'section',
  'summary',
  'table',
  'tbody',
  'tfoot',
  'thead',
  'tr',
  'ul',
]);
/** Elements whose content is not text a reader sees. */
export const HIDDEN = new Set([
  'script',
  'style',
  'template',
  'noscript',
  'iframe',
  'object',
  'svg',
  'math',
  'head',
  'title',
  'textarea',
  'select',
]);
/** Table cells: their text stays on the row's line. */
export const CELL = new Set(['td', 'th']);
