// When to try again: what the server asks for (Retry-After), else exponential backoff with jitter.

const BASE_MS = 1000;
const MAX_MS = 30_000;

/** Milliseconds before reconnect attempt `attempt` (0-based): between half and all of 1 s x 2^attempt, at most 30 s. */
export function backoff(attempt: number, random = Math.random): number {
  const ceiling = Math.min(MAX_MS, BASE_MS * 2 ** attempt);
  return Math.round(ceiling / 2 + (random() * ceiling) / 2);
}

/** Seconds from a Retry-After header: delta-seconds or an HTTP date; null for anything else. */
export function retryAfterSeconds(value: string | null): number | null {
  const v = value?.trim();
  if (!v) return null;
  if (/^\d+$/.test(v)) return Number(v);
  // An HTTP date names its weekday and GMT; Date.parse alone would take "-1" as a year.
  if (!/GMT$/.test(v)) return null;
  const at = Date.parse(v);
  return Number.isNaN(at) ? null : Math.max(0, Math.ceil((at - Date.now()) / 1000));
}
