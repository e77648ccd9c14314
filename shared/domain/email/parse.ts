import { simpleParser, type AddressObject, type ParsedMail } from 'mailparser';
import { htmlToText } from './html-text.ts';

// An inbound message as the email channel reads it: parsed by mailparser (MIME, encodings), its
// HTML turned into text by ./html-text.ts when it has no text part, then reduced to what a
// conversation keeps. The text shown is trimmed of quoted history and
// signatures where they can be recognised; the original stays stored whole.

export interface ParsedEmail {
  messageId: string;
  from: string;
  fromName: string | null;
  /** Every address of To and Cc (the envelope's recipients are the SES event's). */
  to: string[];
  subject: string;
  /** The shown text (trimmed) and whether anything was cut. */
  text: string;
  trimmed: boolean;
  /** Message-IDs this one answers: In-Reply-To first, then References newest first. */
  refs: string[];
  /** RFC 3834 and the usual signs of mail no person wrote. */
  automatic: boolean;
  /** Our own loop marker: this message went out from this service. */
  loop: boolean;
  attachments: Array<{ name: string; contentType: string; content: Buffer; inline: boolean }>;
}

export class MalformedEmail extends Error {}
/** Past a cap that bounds the work a message costs (answered 552). */
export class OverLimit extends Error {}

/** The most HTML converted to text (a mail without a text part): past it the message is refused. */
export const HTML_MAX_BYTES = 1024 * 1024;

const SUBJECT_MAX = 200;
const TEXT_MAX = 20_000;
/** The header this service sets on what it sends, and finds again on a message that looped back. */
export const LOOP_HEADER = 'x-support-loop';

/** One line, no control characters: a decoded subject or name can hold CR/LF (header injection). */
export const oneLine = (s: string, max: number) =>
  [
    ...s
      // biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what this removes
      .replace(/[\u0000-\u001f\u007f-\u009f\u2028\u2029]+/g, ' ')
      .replace(/\s+/g, ' ')
      .trim(),
  ]
    .slice(0, max)
    .join('');

const addresses = (a: AddressObject | AddressObject[] | undefined) =>
  (Array.isArray(a) ? a : a ? [a] : [])
    .flatMap((o) => o.value)
    .flatMap((v) => (v.address ? [v.address.toLowerCase()] : []));

const ids = (v: string | string[] | undefined) =>
  (Array.isArray(v) ? v : v ? v.split(/\s+/) : []).map((s) => s.trim()).filter((s) => /^<[^<>\s]+>$/.test(s));

const AUTOMATIC_SENDER = /^(mailer-daemon|postmaster|no-?reply|do-?not-?reply|bounces?)([+@-]|$)/i;

function isAutomatic(m: ParsedMail, from: string): boolean {
  const h = m.headers;
  const auto = String(h.get('auto-submitted') ?? 'no').toLowerCase();
  const precedence = String(h.get('precedence') ?? '').toLowerCase();
  // mailparser folds List-Id, List-Unsubscribe, List-Post and the other List-* headers into one `list`.
  // A null reverse-path (`Return-Path: <>`) is how bounces and other automatic mail is sent.
  const returnPath = h.get('return-path') as { text?: string } | undefined;
  return (
    auto !== 'no' ||
    ['bulk', 'list', 'junk', 'auto_reply'].includes(precedence) ||
    h.has('list') ||
    h.has('list-id') ||
    h.has('list-unsubscribe') ||
    (returnPath !== undefined && !returnPath.text?.trim()) ||
    h.has('x-autoreply') ||
    h.has('x-autorespond') ||
    String(h.get('x-auto-response-suppress') ?? '')
      .toLowerCase()
      .includes('all') ||
    AUTOMATIC_SENDER.test(from) ||
    (m.headers.get('content-type') as { value?: string } | undefined)?.value === 'multipart/report'
  );
}

/** Lines that start the quoted history or the signature, in the common mail programs. */
const CUT = [
  /^-- ?$/, // RFC 3676 signature separator
  /^-{2,}\s*(original message|forwarded message)\s*-{2,}/i,
  /^_{10,}\s*$/, // Outlook's rule above "From:"
  /^on .{1,300}wrote:\s*$/i,
  /^le .{1,300}a écrit\s*:\s*$/i,
  /^am .{1,300}schrieb .{0,200}:\s*$/i,
  /^from: .+\s*$/i,
  /^sent from my \w+/i,
];

/** The reply as its writer typed it: cut at the first line that starts quoted history or a signature, with trailing `>` lines dropped. */
export function trimQuoted(text: string): { text: string; trimmed: boolean } {
  const lines = text.replace(/\r\n?/g, '\n').split('\n');
  let end = lines.length;
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]!;
    // "On Mon, 1 Jan 2026, Ann <ann@x.example>\nwrote:" wraps in some programs.
    const joined = `${line} ${lines[i + 1] ?? ''}`.trim();
    if (
      CUT.some((r) => r.test(line.trim())) ||
      (/^on\s/i.test(line.trim()) && /wrote:\s*$/i.test(joined) && !/wrote:/i.test(line))
    ) {
      // "From:" starts a quoted header block only when one of its usual fellows follows.
      if (/^from: /i.test(line.trim()) && !/^(sent|date|to|subject): /im.test(lines.slice(i + 1, i + 4).join('\n')))
        continue;
      end = i;
      break;
    }
  }
  while (end > 0 && (/^>/.test(lines[end - 1]!.trim()) || !lines[end - 1]!.trim())) end--;
  const kept = lines.slice(0, end).join('\n').trim();
  if (!kept) return { text: text.trim(), trimmed: false };
  return { text: kept, trimmed: kept !== text.trim() };
}

/**
 * The text of a mail without a text part (HTML only, with or without attachments), converted from
 * its HTML, which is never kept; bounded by HTML_MAX_BYTES in and twice the kept text out.
 */
function htmlBody(m: ParsedMail): string {
  const html = typeof m.html === 'string' ? m.html : '';
  if (!html) return '';
  if (Buffer.byteLength(html) > HTML_MAX_BYTES)
    throw new OverLimit(`the HTML of a message without a text part may be at most ${HTML_MAX_BYTES} bytes`);
  return htmlToText(html, TEXT_MAX * 2).text;
}

export async function parseEmail(raw: Buffer): Promise<ParsedEmail> {
  let m: ParsedMail;
  try {
    // mailparser's own HTML conversion is off: its cost grows faster than the HTML (see ./html-text.ts).
    m = await simpleParser(raw, {
      skipImageLinks: true,
      skipTextToHtml: true,
      skipTextLinks: true,
      skipHtmlToText: true,
    });
  } catch (e) {
    throw new MalformedEmail(`the message could not be parsed as MIME: ${(e as Error).message}`);
  }
  const fromValue = (m.from?.value ?? [])[0];
  const from = fromValue?.address?.toLowerCase() ?? '';
  if (!/^[^\s@]+@[^\s@]+\.[^\s@]+$/.test(from)) throw new MalformedEmail('the message has no valid From address');
  if (m.headers.size === 0) throw new MalformedEmail('the message has no headers');
  const body = m.text?.trim() ? m.text.slice(0, TEXT_MAX * 2) : htmlBody(m);
  const { text, trimmed } = trimQuoted(body);
  return {
    messageId: m.messageId && /^<[^<>\s]+>$/.test(m.messageId) ? m.messageId : '',
    from,
    fromName: fromValue?.name ? oneLine(fromValue.name, 100) || null : null,
    to: [...addresses(m.to), ...addresses(m.cc)],
    subject: oneLine(m.subject ?? '', SUBJECT_MAX),
    text: [...text].slice(0, TEXT_MAX).join(''),
    trimmed,
    refs: [...ids(m.inReplyTo), ...ids(m.references).reverse()],
    automatic: isAutomatic(m, from),
    loop: m.headers.has(LOOP_HEADER),
    attachments: m.attachments.map((a) => ({
      name: oneLine(a.filename ?? 'attachment', 200) || 'attachment',
      contentType: a.contentType || 'application/octet-stream',
      content: a.content,
      inline: a.contentDisposition === 'inline',
    })),
  };
}
