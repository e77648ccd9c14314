import Markdown, { type Components } from 'react-markdown';

// An article's Markdown as React elements, never as an HTML string. Without a raw-HTML plugin,
// HTML written in the Markdown stays text; links keep only http(s) and mailto addresses and open
// without giving the new page a handle on this one; images are not loaded (the widget shows
// articles as text), their description stands in their place. Its own chunk: loaded by the editor.

const SAFE_URL = /^(https?:|mailto:)/i;
/** The address of a link when it is http(s) or mailto, else nothing (the link is then plain text). */
export const safeUrl = (url: string) => (SAFE_URL.test(url.trim()) ? url.trim() : '');

const components: Components = {
  a: ({ href, children }) =>
    href ? (
      <a href={href} target="_blank" rel="noopener noreferrer">
        {children}
      </a>
    ) : (
      <span className="md-link">{children}</span>
    ),
  img: ({ alt }) => <span className="md-img">[image{alt ? `: ${alt}` : ''}]</span>,
  // The page has its own h1 and h2: an article's headings are shown one level below them.
  h1: ({ children }) => <h3>{children}</h3>,
  h2: ({ children }) => <h4>{children}</h4>,
  h3: ({ children }) => <h5>{children}</h5>,
  h4: ({ children }) => <h6>{children}</h6>,
  h5: ({ children }) => <h6>{children}</h6>,
};

export default function MarkdownPreview({ markdown }: { markdown: string }) {
  return (
    <Markdown urlTransform={safeUrl} components={components}>
      {markdown}
    </Markdown>
  );
}
