// Lambda event filtering, as an event source mapping applies a filter pattern to a stream record:
// a pattern object mirrors the record's structure; every key must match (AND); a leaf is an array
// of matchers, one of which must match (OR); a record value that is an array matches when one of
// its elements does. Matchers: exact values (string, number, boolean, null), and the operators
// prefix, suffix, equals-ignore-case, anything-but, numeric and exists. Anything else is refused
// when the pattern is compiled, so a typo in a trigger fails at start instead of filtering silently.

export type FilterPattern = { readonly [key: string]: FilterPattern | readonly unknown[] };

type Matcher = (value: unknown) => boolean;
type Compiled =
  | { kind: 'leaf'; key: string; matchers: Matcher[]; absent: boolean }
  | { kind: 'object'; key: string; keys: Compiled[] };

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

const NUMERIC_OPS: Record<string, (a: number, b: number) => boolean> = {
  '=': (a, b) => a === b,
  '<': (a, b) => a < b,
  '<=': (a, b) => a <= b,
  '>': (a, b) => a > b,
  '>=': (a, b) => a >= b,
};

function operator(where: string, spec: Record<string, unknown>): { matcher: Matcher; absent: boolean } {
  const entries = Object.entries(spec);
  if (entries.length !== 1) throw new Error(`filter ${where}: an operator object has exactly one key`);
  const [op, arg] = entries[0]!;
  const str = (name: string) => {
    if (typeof arg !== 'string') throw new Error(`filter ${where}: ${name} takes a string`);
    return arg;
  };
  switch (op) {
    case 'prefix': {
      const p = str(op);
      return { matcher: (v) => typeof v === 'string' && v.startsWith(p), absent: false };
    }
    case 'suffix': {
      const s = str(op);
      return { matcher: (v) => typeof v === 'string' && v.endsWith(s), absent: false };
    }
    case 'equals-ignore-case': {
      const e = str(op).toLowerCase();
      return { matcher: (v) => typeof v === 'string' && v.toLowerCase() === e, absent: false };
    }
    case 'exists':
      if (typeof arg !== 'boolean') throw new Error(`filter ${where}: exists takes true or false`);
      // exists: true holds for a leaf value only; exists: false is decided by the key's absence.
      return arg
        ? { matcher: (v) => v !== undefined && !isObject(v), absent: false }
        : { matcher: () => false, absent: true };
    case 'anything-but': {
      if (isObject(arg)) {
        const inner = operator(`${where} anything-but`, arg);
        return { matcher: (v) => (typeof v === 'string' || typeof v === 'number') && !inner.matcher(v), absent: false };
      }
      const values = Array.isArray(arg) ? arg : [arg];
      for (const v of values)
        if (typeof v !== 'string' && typeof v !== 'number')
          throw new Error(`filter ${where}: anything-but takes strings or numbers`);
      return { matcher: (v) => (typeof v === 'string' || typeof v === 'number') && !values.includes(v), absent: false };
    }
    case 'numeric': {
      if (!Array.isArray(arg) || arg.length === 0 || arg.length % 2 !== 0 || arg.length > 4) {
        throw new Error(`filter ${where}: numeric takes one or two [operator, number] pairs`);
      }
      const tests: Array<(n: number) => boolean> = [];
      for (let i = 0; i < arg.length; i += 2) {
        const fn = NUMERIC_OPS[arg[i] as string];
        const bound = arg[i + 1];
        if (!fn || typeof bound !== 'number')
          throw new Error(`filter ${where}: numeric ${JSON.stringify(arg)} is not [operator, number, ...]`);
        tests.push((n) => fn(n, bound));
      }
      return { matcher: (v) => typeof v === 'number' && tests.every((t) => t(v)), absent: false };
    }
    default:
      throw new Error(`filter ${where}: unsupported operator ${JSON.stringify(op)}`);
  }
}

function compileLevel(pattern: Record<string, unknown>, path: string): Compiled[] {
  return Object.entries(pattern).map(([key, sub]): Compiled => {
    const where = path ? `${path}.${key}` : key;
    if (Array.isArray(sub)) {
      if (sub.length === 0) throw new Error(`filter ${where}: an empty array matches nothing`);
      let absent = false;
      const matchers: Matcher[] = [];
      for (const m of sub) {
        if (m === null || typeof m === 'string' || typeof m === 'number' || typeof m === 'boolean') {
          matchers.push((v) => v === m);
        } else if (isObject(m)) {
          const op = operator(where, m);
          absent ||= op.absent;
          matchers.push(op.matcher);
        } else {
          throw new Error(`filter ${where}: ${JSON.stringify(m)} is not a value or an operator`);
        }
      }
      return { kind: 'leaf', key, matchers, absent };
    }
    if (isObject(sub)) return { kind: 'object', key, keys: compileLevel(sub, where) };
    throw new Error(`filter ${where}: a leaf must be an array of matchers`);
  });
}

function matchLevel(keys: Compiled[], value: unknown): boolean {
  return keys.every((c) => {
    const v = isObject(value) ? value[c.key] : undefined;
    if (c.kind === 'object') return Array.isArray(v) ? v.some((e) => matchLevel(c.keys, e)) : matchLevel(c.keys, v);
    if (v === undefined) return c.absent;
    const values = Array.isArray(v) ? v : [v];
    return values.some((e) => c.matchers.some((m) => m(e)));
  });
}

/** Compiles a filter pattern once; the returned test says whether a record passes it. */
export function compileFilter(pattern: Record<string, unknown>): (record: unknown) => boolean {
  if (!isObject(pattern)) throw new Error('filter: a pattern is a JSON object');
  const keys = compileLevel(pattern, '');
  return (record) => matchLevel(keys, record);
}
