// Customers' everyday words beside the words help articles use for the same thing: shorthand
// ("hrs", "appt"), British and American spellings, and support's common paraphrases ("smashed" /
// "damaged", "send it back" / "return", "voucher" / "gift card"). Generic English of customer
// support, not any one tenant's: a tenant's own pairs are learned from its articles
// (knowledge-synonyms.ts). A message word of a group matches the group's other words that the
// knowledge base uses, at `lexicon` strength (knowledge-scoring.ts, off by default until measured
// better), never as strongly as the word itself.
//
// Each line is one group; a member of two or more words is a phrase ("gift card"): in a message
// it is read as one word (also with one word between: "send it back"), and in the knowledge base
// it matches where its words are. Below the groups: their lookups by word, by phrase and by a
// phrase's first word, for reading articles and messages.
import { stem } from './words.ts';

const GROUPS = `
hour hrs hr
minute mins min
tomorrow tmrw tmr tmrow
appointment appt
account acct
message msg
information info
picture pic pics photo
text txt sms
quantity qty
approximately approx roughly
colour color
tyre tire
personalise personalize customise customize custom engrave engraving monogram initials
cancel cancelled canceled cancellation quit terminate
organise organize
favourite favorite
cheque check
postcode zip postal code
damaged broken broke smashed cracked bent dented shattered scratched torn ripped faulty defective crushed snapped
faulty defective stopped working not working doesnt work broken
return send back take back returns
refund money back reimburse reimbursement repay
exchange swap switch
delivery shipping postage post ship courier dispatch deliver
cost price fee charge how much pricing rate
discount deal offer promo promotion coupon code
voucher gift card giftcard gift voucher e-voucher evoucher
gift present
pay payment paying
instalments installments split the payment pay monthly monthly payments finance klarna
declined failed rejected bounced refused
login log in sign in signin
password passcode pin
staff employee employees team member colleague worker
customer client
upload import
spreadsheet csv excel
phone mobile iphone android cell
email e-mail mail inbox
open opening hours
address location directions
parking park car
booking reservation reserve appointment slot
missing lost never arrived not arrived didnt arrive hasnt arrived
late delayed
wrong incorrect mistake
child kid kids son daughter children
office workplace corporate company business
bulk wholesale large order
abroad overseas international worldwide outside the uk
customs import duty duties
warranty guarantee
repair fix mend
trial try free trial
subscription plan membership
pregnant pregnancy expecting prenatal antenatal
baby newborn postnatal
beginner first time never done new to
change update edit amend modify
receipt invoice
tax vat
recorded on demand replay recording
stop pause freeze hold suspend
`;

const COUNTRIES =
  'abroad us usa america canada australia germany france spain italy ireland netherlands europe eu japan china india';

export interface LexiconGroup {
  members: string[][];
} // each member as its words

function parse(): LexiconGroup[] {
  const groups = GROUPS.trim()
    .split('\n')
    .map((line) => line.trim())
    .filter(Boolean);
  const out: LexiconGroup[] = [];
  for (const line of groups) {
    // Members are single words, or phrases known by the phrase list below.
    out.push({ members: splitMembers(line) });
  }
  out.push({
    members: COUNTRIES.split(' ')
      .map((w) => [w])
      .concat([['international'], ['overseas'], ['worldwide']]),
  });
  return out;
}

// Phrases of the groups above: the longest match wins when a line is split into members.
const PHRASES = [
  'how much',
  'send back',
  'take back',
  'money back',
  'gift card',
  'gift voucher',
  'split the payment',
  'pay monthly',
  'monthly payments',
  'log in',
  'sign in',
  'team member',
  'opening hours',
  'never arrived',
  'not arrived',
  'didnt arrive',
  'hasnt arrived',
  'large order',
  'outside the uk',
  'import duty',
  'free trial',
  'first time',
  'never done',
  'new to',
  'on demand',
  'stopped working',
  'not working',
  'doesnt work',
  'postal code',
].map((p) => p.split(' '));

function splitMembers(line: string): string[][] {
  const ws = line.split(/\s+/);
  const out: string[][] = [];
  for (let i = 0; i < ws.length; ) {
    const phrase = PHRASES.filter((p) => p.every((w, k) => ws[i + k] === w)).sort((a, b) => b.length - a.length)[0];
    if (phrase) {
      out.push(phrase);
      i += phrase.length;
    } else {
      out.push([ws[i]!]);
      i++;
    }
  }
  return out;
}

export const LEXICON: readonly LexiconGroup[] = parse();

/** Phrases of two or more words, for reading a message: first word -> the phrases that start with it. */
export const LEXICON_PHRASES: ReadonlyMap<string, string[][]> = (() => {
  const m = new Map<string, string[][]>();
  for (const g of LEXICON) for (const p of g.members) if (p.length > 1) m.set(p[0]!, [...(m.get(p[0]!) ?? []), p]);
  return m;
})();

// The lexicon by its single words (and their stems) and by its phrases: group indexes.
export const wordGroups = new Map<string, number[]>();
export const phraseGroups = new Map<string, number[]>();
LEXICON.forEach((g, k) => {
  for (const m of g.members) {
    const keys = m.length === 1 ? [m[0]!, stem(m[0]!)] : [m.join(' ')];
    const map = m.length === 1 ? wordGroups : phraseGroups;
    for (const key of new Set(keys)) map.set(key, [...(map.get(key) ?? []).filter((x) => x !== k), k]);
  }
});

// Phrases by the stem of their first word, with their words' stems.
const phrasesByFirst = new Map<string, Array<{ key: string; stems: string[] }>>();
for (const p of LEXICON_PHRASES.values()) {
  for (const words of p) {
    const stems = words.map(stem);
    phrasesByFirst.set(stems[0]!, [...(phrasesByFirst.get(stems[0]!) ?? []), { key: words.join(' '), stems }]);
  }
}

/**
 * The lexicon phrase that starts at ws[i], word for word by stems; with `gap`, a two-word phrase
 * also with one word between ("send it back").
 */
export function lexiconPhraseAt(ws: string[], i: number, gap: boolean): { key: string; span: number } | null {
  for (const p of phrasesByFirst.get(stem(ws[i]!)) ?? []) {
    if (p.stems.every((ps, k) => i + k < ws.length && stem(ws[i + k]!) === ps))
      return { key: p.key, span: p.stems.length };
    if (gap && p.stems.length === 2 && i + 2 < ws.length && stem(ws[i + 2]!) === p.stems[1])
      return { key: p.key, span: 3 };
  }
  return null;
}

/** "didn t" -> "didnt": the apostrophe's pieces joined again, as the lexicon writes them. */
export function joinContractions(ws: string[]): string[] {
  if (!ws.includes('t')) return ws;
  const out: string[] = [];
  for (const x of ws) {
    if (x === 't' && out.length > 0 && out[out.length - 1]!.endsWith('n')) out[out.length - 1] += 't';
    else out.push(x);
  }
  return out;
}
