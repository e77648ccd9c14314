import { describe, expect, it } from 'vitest';
import { eventually, present } from '../support/eventually.ts';

describe('eventually', () => {
  it('tries again until the check passes and resolves with what it returned', async () => {
    let tries = 0;
    const got = await eventually(
      () => {
        tries++;
        expect(tries).toBe(3);
        return 'done';
      },
      { interval: 1 },
    );
    expect(got).toBe('done');
    expect(tries).toBe(3);
  });

  it('after its deadline throws the last error, saying what was awaited and keeping the diff', async () => {
    let n = 0;
    const failure = await eventually(() => expect(++n).toBe(-1), { what: 'a zero', timeout: 30, interval: 5 }).catch(
      (e: unknown) => e as Error & { expected?: unknown },
    );
    expect(failure).toBeInstanceOf(Error);
    expect(failure!.message).toMatch(
      /^a zero did not hold within 30 ms \(\d+ attempts\); last error: expected \d+ to be -1/,
    );
    expect(failure!.expected).toBe(-1);
  });

  it('waits for something to be present', async () => {
    const frames: string[] = [];
    setTimeout(() => frames.push('hello'), 20);
    expect(await eventually(() => present(frames[0], 'a frame'), { interval: 5 })).toBe('hello');
    expect(() => present(undefined, 'a frame')).toThrow('no a frame yet');
    expect(() => present(false)).toThrow();
    expect(present(0)).toBe(0);
  });
});
