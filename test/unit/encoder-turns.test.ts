import { describe, expect, it } from 'vitest';
import { turns, type Lane } from '#shared/nlu/index.ts';

/** Lanes asking in this order while a first call holds the model; the order they are served in. */
async function servedOrder(asks: Lane[]) {
  const t = turns();
  const first = await t.take('holder');
  const served: string[] = [];
  const done = asks.map((lane, k) =>
    t.take(lane).then((release) => {
      served.push(`${lane ?? 'background'}#${k}`);
      release();
    }),
  );
  first();
  await Promise.all(done);
  return served;
}

describe('turns at the model', () => {
  it("serves one tenant after another, so a tenant waiting behind another tenant's many calls goes second", async () => {
    expect(await servedOrder(['flood', 'flood', 'flood', 'flood', 'quiet'])).toEqual([
      'flood#0',
      'quiet#4',
      'flood#1',
      'flood#2',
      'flood#3',
    ]);
  });

  it('serves background work only when no request waits', async () => {
    expect(await servedOrder([undefined, 'a', undefined, 'b', 'a'])).toEqual([
      'a#1',
      'b#3',
      'a#4',
      'background#0',
      'background#2',
    ]);
  });

  it('runs one call at a time, and a release given twice frees one turn', async () => {
    const t = turns();
    const r1 = await t.take('a');
    let second = false;
    let third = false;
    const p2 = t.take('b').then((r) => {
      second = true;
      return r;
    });
    const p3 = t.take('c').then((r) => {
      third = true;
      return r;
    });
    await Promise.resolve();
    expect([second, third]).toEqual([false, false]);
    r1();
    r1();
    const r2 = await p2;
    await Promise.resolve();
    expect([second, third]).toEqual([true, false]);
    r2();
    (await p3)();
    // Free again: the next caller goes at once.
    const r4 = await t.take(undefined);
    r4();
  });
});
