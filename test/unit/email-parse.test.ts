import MailComposer from 'nodemailer/lib/mail-composer/index.js';
import type Mail from 'nodemailer/lib/mailer/index.js';
import { describe, expect, it } from 'vitest';
import { htmlToText, MAX_DEPTH } from '#shared/domain/email/html-text.ts';
import { HTML_MAX_BYTES, OverLimit, parseEmail } from '#shared/domain/email/parse.ts';

// An inbound mail as the channel reads it: its HTML turned into text with bounded work.

const mime = (m: Mail.Options) =>
  new MailComposer({ from: 'Ann <ann@customer.example>', to: 'shop@mail.localhost', subject: 'Hi', ...m })
    .compile()
    .build();
const table = (rows: number) =>
  `<html><head><style>td{color:red}</style></head><body><table>${Array.from(
    { length: rows },
    (_, i) => `<tr><td>row ${i}</td><td>value &amp; ${i}</td></tr>`,
  ).join('')}</table></body></html>`;

describe('HTML to text', () => {
  it('keeps what a reader sees: blocks on lines, cells apart, entities decoded, link addresses, no script or style', () => {
    const r = htmlToText(
      '<p>Hello <b>Ann</b>,</p><p>see <a href="https://x.example/a">this</a> or <a href="javascript:alert(1)">that</a></p>' +
        '<ul><li>one</li><li>two</li></ul><script>bad()</script><table><tr><td>a</td><td>b</td></tr></table>Bye&nbsp;now<br>next',
      1000,
    );
    expect(r.text).toBe(
      'Hello Ann,\n\nsee this <https://x.example/a> or that\n\n- one\n- two\n\na | b\n\nBye now\nnext',
    );
    expect(r).toMatchObject({ cut: false });
  });

  it('converts a whole table, and stops reading once the text kept is out: the work is bounded by the cap, not the HTML', () => {
    const small = htmlToText(table(300), 1_000_000);
    expect(small.cut).toBe(false);
    expect(small.text.split('\n')).toHaveLength(300);
    expect(small.text.split('\n')[299]).toBe('row 299 | value & 299');
    // 30,000 rows (1.5 MB): 40,000 characters of text are out after some 90 KB of HTML.
    const big = table(30_000);
    const r = htmlToText(big, 40_000);
    expect(r.cut).toBe(true);
    expect(r.text.length).toBeLessThanOrEqual(40_000);
    expect(r.read).toBeLessThan(big.length / 10);
    expect(r.text.startsWith('row 0 | value & 0\nrow 1 | value & 1')).toBe(true);
  });

  it("stops at the nesting cap instead of letting the parser's open elements grow with the HTML", () => {
    const deep = `${'<div><span>'.repeat(100_000)}x`;
    const r = htmlToText(deep, 40_000);
    expect(r.cut).toBe(true);
    expect(r.read).toBeLessThan(MAX_DEPTH * 20);
  });

  it('a 30,000-row table with no cap on the text converts in one pass: every row, in order', () => {
    const r = htmlToText(table(30_000), Number.POSITIVE_INFINITY);
    const lines = r.text.split('\n');
    expect(lines).toHaveLength(30_000);
    expect(lines[29_999]).toBe('row 29999 | value & 29999');
  }, 30_000);
});

describe('parsing a mail', () => {
  it('an HTML-only mail with attachments (multipart/mixed, no text part) keeps its text', async () => {
    const raw = await mime({
      html: '<p>The <b>invoice</b> is attached.</p>',
      attachments: [{ filename: 'invoice.pdf', content: Buffer.from('%PDF-1.4') }],
    });
    expect(raw.toString()).toContain('multipart/mixed');
    const m = await parseEmail(raw);
    expect(m.text).toBe('The invoice is attached.');
    expect(m.attachments.map((a) => a.name)).toEqual(['invoice.pdf']);
  });

  it('an HTML-only mail is read as text; HTML past the cap is refused as over a limit', async () => {
    const ok = await parseEmail(await mime({ html: '<p>My <b>order</b> is late</p>' }));
    expect(ok.text).toBe('My order is late');
    const rows = Math.ceil(HTML_MAX_BYTES / 40);
    await expect(parseEmail(await mime({ html: table(rows) }))).rejects.toBeInstanceOf(OverLimit);
  });
});
