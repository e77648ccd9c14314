// The one way the tests wait for something that happens in the background (a stream record handled, a
// delivery made, a frame on a socket): poll the condition itself until it holds or a deadline passes.
// Never a fixed sleep: a loaded CI machine makes any fixed wait too short one day.

// Taken once, so a test that fakes the timers does not stop the polling.
const wait = globalThis.setTimeout;
const now = () => performance.now();

export interface EventuallyOptions {
  /** Named in the failure, e.g. 'the reply on the customer socket'. */
  what?: string;
  /** Generous by default: the deadline only matters when the test is failing. */
  timeout?: number;
  /** Between attempts, after an attempt returns. */
  interval?: number;
}

/**
 * Runs `check` until it returns without throwing, and resolves with what it returned. After `timeout`
 * ms (20 s by default) it throws the last attempt's error, its message prefixed with what was awaited
 * and for how long (an assertion's expected/actual diff is kept).
 */
export async function eventually<T>(
  check: () => T | Promise<T>,
  { what = 'the condition', timeout = 20_000, interval = 100 }: EventuallyOptions = {},
): Promise<T> {
  const deadline = now() + timeout;
  for (let attempts = 1; ; attempts++) {
    try {
      return await check();
    } catch (e) {
      if (now() >= deadline) {
        const err = e instanceof Error ? e : new Error(String(e));
        err.message = `${what} did not hold within ${timeout} ms (${attempts} attempts); last error: ${err.message}`;
        throw err;
      }
    }
    await new Promise((done) => wait(done, interval));
  }
}

/** `value` unless it is undefined, null or false, for `eventually` to wait until something is there. */
export function present<T>(value: T | undefined | null | false, what = 'the value'): T {
  if (value === undefined || value === null || value === false) throw new Error(`no ${what} yet`);
  return value;
}
