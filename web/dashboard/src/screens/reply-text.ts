import { REPLY_PLACEHOLDERS, type ReplyPlaceholder } from '#vocabulary';

// The text side of the saved-reply picker: which `/word` is being typed, and a reply filled in.

const PLACEHOLDER = new RegExp(`\\{\\{(${REPLY_PLACEHOLDERS.map((p) => p.replace('.', '\\.')).join('|')})\\}\\}`, 'g');

/** The first word of a customer's name, for `{{visitor.firstName}}` ("Carl Mendes" -> "Carl"); '' without one. */
export const firstNameOf = (name: string | null | undefined) => (name ?? '').trim().split(/\s+/)[0] ?? '';

/** Whether a saved reply names the agent: the member is asked for their name before it is filled in. */
export const namesAgent = (body: string) => body.includes('{{agent.name}}');
const EMPTY = '\u0000';

/**
 * A saved reply's text for this conversation. A value it does not have becomes empty text, and the
 * space before the punctuation that followed is dropped: "Hi {{visitor.name}}, ..." -> "Hi, ...".
 */
export function fillReply(body: string, values: Partial<Record<ReplyPlaceholder, string>>): string {
  return body
    .replace(PLACEHOLDER, (_, key: ReplyPlaceholder) => values[key] || EMPTY)
    .replace(new RegExp(`[ \\t]*${EMPTY}+(?=[,.;:!?])`, 'g'), '')
    .replace(new RegExp(` ${EMPTY}+ `, 'g'), ' ')
    .replace(new RegExp(EMPTY, 'g'), '');
}

/** The `/word` being typed just before the caret: where it starts and what follows the slash. */
export function slashToken(text: string, caret: number): { start: number; query: string } | null {
  const m = /(^|\s)\/([^\s/][^\n/]{0,39}|)$/.exec(text.slice(0, caret));
  return m ? { start: caret - m[2]!.length - 1, query: m[2]! } : null;
}
