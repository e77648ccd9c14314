import { createRequire } from 'node:module';
import type { RE2JS } from 're2js';

// RE2 (re2js, about 150 KB minified) is required on the first tenant regex pattern, not bundled:
// most functions and most tenants never use one, and every cold start would parse it. A function
// bundle finds it in node_modules beside itself (infra/function.ts copies it there).
let re2: typeof RE2JS | undefined;
function RE2(): typeof RE2JS {
  re2 ??= (createRequire(import.meta.url)('re2js') as typeof import('re2js')).RE2JS;
  return re2;
}

export const ENTITY_TYPES = ['email', 'phone', 'number', 'date', 'order_id', 'url', 'regex'] as const;
export type EntityType = (typeof ENTITY_TYPES)[number];
/**
 * An entity an intent reads from the message. `required`: the intent does not answer without it;
 * the assistant asks with `prompt` and answers once the customer gives it (a slot, as in Lex or a
 * Rasa form). An entity the response names as `{{name}}` is required whether it says so or not.
 */
export interface EntitySpec {
  name: string;
  type: EntityType;
  pattern?: string;
  required?: boolean;
  prompt?: string;
}

export const MAX_PROMPT_LENGTH = 300;

export const MAX_PATTERN_LENGTH = 200;

// Built-in extractors use native RegExp, but every quantifier that can meet a long run of the
// same characters is bounded and every match start is anchored by a lookbehind, so the work
// per start position is bounded too: linear in the message length, whatever the input.
const EMAIL =
  /(?<![\w.%+-])[\w.%+-]{1,64}@[a-z\d](?:[a-z\d-]{0,61}[a-z\d])?(?:\.[a-z\d](?:[a-z\d-]{0,61}[a-z\d])?){0,8}\.[a-z]{2,24}(?![\w-])/giu;
const URL_RE = /(?<![\w@./-])(?:https?:\/\/|www\.)[^\s<>"'`]{1,2048}/gi;
// Digits, spaces, dots, dashes and brackets, 7 to 15 digits in all (E.164 allows 15).
const PHONE = /(?<![\w+./-])(?:\+|00)?\(?\d[\d\s().-]{5,22}\d(?![\w/-])/g;
const NUMBER = /(?<![\w.,/-])-?(?:\d{1,3}(?:,\d{3}){1,6}|\d{1,20})(?:\.\d{1,10})?(?![\w/-]|[.,]\d)/g;
const MONTHS =
  'jan(?:uary)?|feb(?:ruary)?|mar(?:ch)?|apr(?:il)?|may|june?|july?|aug(?:ust)?|sep(?:t(?:ember)?)?|oct(?:ober)?|nov(?:ember)?|dec(?:ember)?';
const DAYS = 'monday|tuesday|wednesday|thursday|friday|saturday|sunday';
const DATE = new RegExp(
  [
    String.raw`\d{4}-\d{1,2}-\d{1,2}`, // 2025-03-14
    String.raw`\d{1,2}[\/.]\d{1,2}[\/.]\d{2,4}`, // 14/03/2025, 3.14.25
    String.raw`\d{1,2}(?:st|nd|rd|th)?(?:\s{1,3}of)?\s{1,3}(?:${MONTHS})\.?(?:,?\s{1,3}\d{4})?`, // 14th of March 2025
    String.raw`(?:${MONTHS})\.?\s{1,3}\d{1,2}(?:st|nd|rd|th)?(?:,?\s{1,3}\d{4})?`, // March 14, 2025
    String.raw`(?:the\s{1,3}day\s{1,3}(?:before|after)\s{1,3})?(?:today|tomorrow|yesterday|tonight)`,
    String.raw`(?:(?:next|last|this)\s{1,3})?(?:${DAYS}|week|month|weekend)`,
  ]
    .map((alt) => `(?<![\\w\\/.-])(?:${alt})(?![\\w\\/-]|[.]\\d)`)
    .join('|'),
  'gi',
);
// An order id: a token with at least 3 digits right after "order (id|number|no|#)", or a
// "#"-prefixed token, or a free-standing token like ORD-2024-00042 / A123456 / 1234567.
const ORDER_AFTER_KEYWORD =
  /\border(?:\s{1,3}(?:id|number|num|no\.?|ref(?:erence)?))?\s{0,3}(?:is\s{1,3}|[:#]\s{0,3}){0,2}((?:[a-z]{1,6}-?)?\d[a-z\d-]{2,39})(?![\w-])/gi;
const ORDER_HASH = /(?<![\w#])#\s?([a-z\d][a-z\d-]{2,39})(?![\w-])/gi;
const ORDER_TOKEN =
  /(?<![\w@./+-])((?:[a-z]{1,6}-?)?\d{5,20}(?:-\d{1,10}){0,3}|[a-z]{1,6}-\d{3,20}(?:-\d{1,10}){0,3})(?![\w@/-]|[.,]\d)/gi;

const TRAILING_PUNCT = /[.,;:!?)\]}'"]+$/;

function firstMatch(re: RegExp, text: string, accept: (m: RegExpExecArray) => string | null): string | null {
  re.lastIndex = 0;
  for (let m = re.exec(text); m; m = re.exec(text)) {
    const v = accept(m);
    if (v) return v;
    if (m[0].length === 0) re.lastIndex++;
  }
  return null;
}

const digitCount = (s: string): number => s.replace(/\D/g, '').length;

function extractEmail(text: string): string | null {
  return firstMatch(EMAIL, text, (m) => m[0]);
}

function extractUrl(text: string): string | null {
  return firstMatch(URL_RE, text, (m) => {
    const url = m[0].replace(TRAILING_PUNCT, '');
    return url.length > 4 ? url : null;
  });
}

function extractPhone(text: string): string | null {
  return firstMatch(PHONE, text, (m) => {
    const raw = m[0].trim();
    const n = digitCount(raw);
    if (n < 7 || n > 15) return null;
    // An ISO date or a dotted version is not a phone number.
    if (/^\d{4}-\d{1,2}-\d{1,2}$/.test(raw) || /^\d{1,2}[/.]\d{1,2}[/.]\d{2,4}$/.test(raw)) return null;
    if (!/[\s().+-]/.test(raw) && n < 8) return null; // a bare 7-digit run is more likely a number
    return raw;
  });
}

function extractNumber(text: string): string | null {
  return firstMatch(NUMBER, text, (m) => m[0].replace(/,/g, ''));
}

function extractDate(text: string): string | null {
  return firstMatch(DATE, text, (m) => m[0].replace(/\s+/g, ' '));
}

function extractOrderId(text: string): string | null {
  const hasDigit = (s: string) => /\d/.test(s);
  return (
    firstMatch(ORDER_AFTER_KEYWORD, text, (m) => (m[1] && hasDigit(m[1]) ? m[1] : null)) ??
    firstMatch(ORDER_HASH, text, (m) => (m[1] && hasDigit(m[1]) ? m[1] : null)) ??
    firstMatch(ORDER_TOKEN, text, (m) => {
      const v = m[1] ?? '';
      // Phone numbers and years are not order ids.
      if (/^(?:19|20)\d\d$/.test(v) || digitCount(v) > 15) return null;
      return v;
    })
  );
}

const compiled = new Map<string, RE2JS | Error>();

function compilePattern(pattern: string): RE2JS | Error {
  let re = compiled.get(pattern);
  if (!re) {
    try {
      const engine = RE2();
      re = engine.compile(pattern, engine.CASE_INSENSITIVE);
    } catch (e) {
      re = e instanceof Error ? e : new Error(String(e));
    }
    if (compiled.size > 500) compiled.clear(); // bounded; patterns are few per tenant
    compiled.set(pattern, re);
  }
  return re;
}

/**
 * Null when a regex entity pattern is acceptable, else a short reason. Patterns run on RE2
 * (linear time), so catastrophic backtracking cannot happen; what RE2 cannot express
 * (backreferences, lookaround) is refused here rather than failing at chat time.
 */
export function checkPattern(pattern: string): string | null {
  if (typeof pattern !== 'string' || pattern.length === 0) return 'pattern must not be empty';
  if ([...pattern].length > MAX_PATTERN_LENGTH) return `pattern must be at most ${MAX_PATTERN_LENGTH} characters`;
  const re = compilePattern(pattern);
  if (re instanceof Error) {
    const why = re.message.replace(/^error parsing regexp:\s*/, '');
    return `pattern is not a valid RE2 regular expression (no backreferences or lookaround): ${why}`;
  }
  if (re.matches('')) return 'pattern must not match the empty string';
  return null;
}

function extractRegex(text: string, pattern: string | undefined): string | null {
  if (!pattern || checkPattern(pattern) !== null) return null;
  const re = compilePattern(pattern) as RE2JS;
  const m = re.matcher(text);
  while (m.find()) {
    // The first capture group, when the pattern has one, is the value; else the whole match.
    const v = re.groupCount() > 0 ? (m.group(1) ?? m.group(0)) : m.group(0);
    if (v) return v;
  }
  return null;
}

/** The declared entities found in the text, by entity name (first occurrence of each). */
export function extractEntities(text: string, specs: EntitySpec[]): Record<string, string> {
  const out: Record<string, string> = {};
  for (const spec of specs) {
    let v: string | null = null;
    switch (spec.type) {
      case 'email':
        v = extractEmail(text);
        break;
      case 'phone':
        v = extractPhone(text);
        break;
      case 'number':
        v = extractNumber(text);
        break;
      case 'date':
        v = extractDate(text);
        break;
      case 'order_id':
        v = extractOrderId(text);
        break;
      case 'url':
        v = extractUrl(text);
        break;
      case 'regex':
        v = extractRegex(text, spec.pattern);
        break;
    }
    if (v !== null && v !== '') out[spec.name] = v;
  }
  return out;
}

/**
 * Fills `{{name}}` placeholders. A placeholder whose entity was not found is dropped, together
 * with one adjoining space so that no double space or space before punctuation is left.
 */
export function fillTemplate(template: string, entities: Record<string, string>): string {
  return template.replace(
    /( ?)\{\{\s*([A-Za-z_][\w-]*)\s*\}\}( ?)/g,
    (_m, before: string, name: string, after: string, offset: number) => {
      if (Object.hasOwn(entities, name)) return `${before}${entities[name]}${after}`;
      const next = template[offset + _m.length];
      // Keep one space when the placeholder sat between two words.
      return before && after && next !== undefined && !/[.,;:!?)]/.test(next) ? ' ' : '';
    },
  );
}

const PLACEHOLDER = /\{\{\s*([A-Za-z_][\w-]*)\s*\}\}/g;

/** The names a template's `{{placeholders}}` use, each once, in order. */
export function templateNames(template: string): string[] {
  return [...new Set([...template.matchAll(PLACEHOLDER)].map((m) => m[1]!))];
}

/** The entities an intent cannot answer without (required, or named by its response) that `found` lacks, in declared order. */
export function missingEntities(
  intent: { response: string; entities: EntitySpec[] },
  found: Record<string, string>,
): EntitySpec[] {
  const named = new Set(templateNames(intent.response));
  return intent.entities.filter((e) => (e.required || named.has(e.name)) && !Object.hasOwn(found, e.name));
}

/** What the assistant asks for a missing entity: its prompt, else a plain question naming it. */
export function promptFor(spec: EntitySpec): string {
  if (spec.prompt) return spec.prompt;
  const what =
    spec.type === 'order_id' ? 'order number' : spec.type === 'email' ? 'email address' : spec.name.replace(/_/g, ' ');
  return `Could you tell me your ${what}?`;
}

// The answer to "which order?" may be the bare token ("4411", "#4411", "it's A-1234"): shorter
// than a free-standing order id elsewhere in a sentence may be, since the question names it.
const BARE_ORDER =
  /^(?:(?:it'?s|it is|order|number|no\.?|nr\.?)\s{1,3}){0,2}#?\s?((?:[a-z]{1,6}-?)?\d[a-z\d-]{2,39})[.!]?$/i;

/** The value of the entity the assistant asked for, from the customer's answer; null when it is not there. */
export function slotValue(text: string, spec: EntitySpec): string | null {
  const found = extractEntities(text, [spec])[spec.name];
  if (found !== undefined) return found;
  if (spec.type === 'order_id') return BARE_ORDER.exec(text.trim())?.[1] ?? null;
  return null;
}
