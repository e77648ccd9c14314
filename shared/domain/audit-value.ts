// An audit entry must stay far below DynamoDB's 400 KB item size: long values are summarised.
const MAX_AUDIT_VALUE = 4096;
/** A value as an audit entry's `changes` record it. */
export const auditValue = (v: unknown): unknown => {
  if (v === undefined) return null;
  const s = JSON.stringify(v);
  if (s.length <= MAX_AUDIT_VALUE) return v;
  return Array.isArray(v) ? { items: v.length, truncated: true } : { truncated: true };
};
