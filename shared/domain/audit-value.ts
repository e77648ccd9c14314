// An audit entry must stay far below DynamoDB's 400 KB item size: long values are summarised.
const MAX_AUDIT_VALUE = 4096;
/** A value as an audit entry's `changes` record it. */
export const auditValue = (v: unknown): unknown => {
  if (v === undefined) return null;
  const s = JSON.stringify(v);
  if (s.length <= MAX_AUDIT_VALUE) return v;
  return Array.isArray(v) ? { items: v.length, truncated: true } : { truncated: true };
};

/**
 * A value in one spelling: object keys in one order (DynamoDB keeps none, and a form may send
 * another), and an empty object as nothing (a merge patch that removes a key that was not there leaves one).
 */
const canonical = (v: unknown) =>
  JSON.stringify(v ?? null, (_k, x: unknown) => {
    if (!x || typeof x !== 'object' || Array.isArray(x)) return x;
    const entries = Object.entries(x).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return entries.length ? Object.fromEntries(entries) : null;
  });
/** Two values are the same for the audit log (nothing worth writing) when they read the same in that spelling. */
export const sameValue = (a: unknown, b: unknown) => canonical(a) === canonical(b);
