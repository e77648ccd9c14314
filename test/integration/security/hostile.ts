import fc from 'fast-check';

// Generators of hostile input, as raw JSON text (so that `__proto__` keys, huge numbers and deep
// nesting reach the server exactly as an attacker would send them).

export const POLLUTION = 'polluted_by_fuzz';

const deep = (depth: number, open: string, close: string, leaf: string) =>
  open.repeat(depth) + leaf + close.repeat(depth);

const hostileShort = fc.oneof(
  fc.string({ unit: 'binary', maxLength: 40 }),
  fc.string({ unit: 'grapheme', maxLength: 40 }),
  fc.constantFrom(
    '\u0000',
    '\u0007\u001b[31m',
    '\ud800',
    'a\udfffb',
    '\u202e',
    '\ufeff',
    '   ',
    '',
    '\r\n',
    '😀'.repeat(3),
    // biome-ignore lint/suspicious/noTemplateCurlyInString: a log-injection probe, sent as it is
    '${jndi:ldap://x}',
    '<script>alert(1)</script>',
    "' OR 1=1 --",
    '../../etc/passwd',
    '%00',
    `wk_${'a'.repeat(30)}`,
    'tkt_01ARZ3NDEKTSV4RRFFQ69G5FAV',
    '00000000-0000-4000-8000-000000000000',
    'null',
    'true',
    '-0',
    'NaN',
  ),
  fc.integer({ min: 129, max: 2100 }).map((n) => 'y'.repeat(n)),
);

/** Hostile strings, including oversized ones (bodies only: an oversized URL is the gateway's own 414/431). */
export const hostileString = fc.oneof(
  hostileShort,
  fc.integer({ min: 2001, max: 70_000 }).map((n) => 'x'.repeat(n)),
);

/** A raw JSON value text. */
export const hostileValue: fc.Arbitrary<string> = fc.letrec<{ v: string }>((tie) => ({
  v: fc.oneof(
    { depthSize: 'small' },
    hostileString.map((s) => JSON.stringify(s)),
    fc.constantFrom(
      '1e400',
      '-1e400',
      '123456789012345678901234567890',
      '1.5',
      '-1',
      '0',
      '2.5e-324',
      '9007199254740993',
      'true',
      'false',
      'null',
      '[]',
      '{}',
    ),
    fc.double().map((d) => (Number.isFinite(d) ? JSON.stringify(d) : '0')),
    fc.integer({ min: 10, max: 5000 }).map((n) => deep(n, '[', ']', '1')),
    fc.integer({ min: 10, max: 5000 }).map((n) => deep(n, '{"a":', '}', '1')),
    fc.constant(`{"__proto__":{"${POLLUTION}":"yes"}}`),
    fc.constant(`{"constructor":{"prototype":{"${POLLUTION}":"yes"}}}`),
    fc.array(tie('v'), { maxLength: 4 }).map((xs) => `[${xs.join(',')}]`),
    fc
      .array(fc.tuple(hostileKey(), tie('v')), { maxLength: 4 })
      .map((es) => `{${es.map(([k, v]) => `${JSON.stringify(k)}:${v}`).join(',')}}`),
  ),
})).v;

function hostileKey(fields: string[] = []) {
  return fc.oneof(
    fc.constantFrom('__proto__', 'constructor', 'prototype', 'toString', 'hasOwnProperty', ...fields),
    ...(fields.length ? [fc.constantFrom(...fields)] : []),
    fc.string({ maxLength: 12 }),
  );
}

const FIELDS = [
  'message',
  'conversationId',
  'reason',
  'tenantName',
  'name',
  'status',
  'priority',
  'config',
  'role',
  'email',
  'trainingPhrases',
  'response',
  'entities',
  'action',
  'enabled',
  'description',
  'type',
  'credentials',
];

/** A raw request body text: mostly JSON objects with the route's field names, sometimes not an object at all. */
export const hostileBody = fc.oneof(
  {
    weight: 6,
    arbitrary: fc
      .array(fc.tuple(hostileKey(FIELDS), hostileValue), { maxLength: 5 })
      .map((es) => `{${es.map(([k, v]) => `${JSON.stringify(k)}:${v}`).join(',')}}`),
  },
  { weight: 1, arbitrary: hostileValue },
  {
    weight: 1,
    arbitrary: fc.constantFrom(
      '{',
      '{"message":}',
      '\u0000',
      '{"a":1}{"b":2}',
      '{"message":"hi",}',
      "{'message':'hi'}",
      `{"__proto__":{"${POLLUTION}":1},"message":"hi"}`,
    ),
  },
);

const QUERY_KEYS = [
  'limit',
  'cursor',
  'status',
  'priority',
  'category',
  'from',
  'to',
  '__proto__',
  'constructor',
  'limit[]',
  'a',
];
/** A query string, already encoded. */
export const hostileQuery = fc
  .array(
    fc.tuple(
      fc.constantFrom(...QUERY_KEYS),
      fc.oneof(
        hostileShort,
        fc.constantFrom('0', '101', '-1', '1e3', '2026-02-30', '9999-12-31', '0000-01-01', 'open'),
      ),
    ),
    { maxLength: 4 },
  )
  .map((es) => es.map(([k, v]) => `${safeEncode(k)}=${safeEncode(v)}`).join('&'));

/** A path segment value, already encoded. */
export const hostilePathValue = fc
  .oneof(
    hostileShort.filter((s) => s.length > 0),
    fc.constantFrom('%', '..', '.', '%2e%2e', 'a%2Fb'),
  )
  .map((s) => (/^(%|\.\.|\.|%2e%2e|a%2Fb)$/.test(s) ? s : safeEncode(s)));

/** encodeURIComponent, with lone surrogates sent as the (invalid UTF-8) bytes an attacker would send. */
export function safeEncode(s: string): string {
  try {
    return encodeURIComponent(s);
  } catch {
    return Array.from(s, (ch) => {
      try {
        return encodeURIComponent(ch);
      } catch {
        return '%ED%A0%80';
      }
    }).join('');
  }
}
