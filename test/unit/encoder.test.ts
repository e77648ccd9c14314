import { describe, expect, it } from 'vitest';
import { batches, cosine, dequantize, DIMS, encoder, MESSAGE_TOKENS, quantize } from '#shared/nlu/index.ts';

// The real model, loaded once for the file: paraphrases sit closer than unrelated sentences.
describe('the sentence encoder', () => {
  it('puts paraphrases closer than unrelated pairs', async () => {
    const e = await encoder();
    const [bikes, bicycles, hours, refund, moneyBack] = await e.embed([
      'do you sell bikes',
      'are bicycles for sale here',
      'what time do you close',
      'how do I get a refund',
      'I want my money back',
    ]);
    expect(bikes).toHaveLength(DIMS);
    expect(cosine(bikes!, bicycles!)).toBeGreaterThan(cosine(bikes!, hours!) + 0.2);
    expect(cosine(refund!, moneyBack!)).toBeGreaterThan(cosine(refund!, bicycles!) + 0.2);
  }, 60_000);

  it('keeps cosines through the stored int8 form', async () => {
    const [a, b] = await (await encoder()).embed(['track my parcel', 'where is my order']);
    const stored = quantize(a!);
    expect(stored.byteLength).toBe(DIMS);
    expect(Math.abs(cosine(dequantize(stored), b!) - cosine(a!, b!))).toBeLessThan(0.01);
  }, 60_000);

  it('embeds an empty text and a batch larger than one model call, in order', async () => {
    const texts = Array.from({ length: 40 }, (_, i) => (i === 3 ? '' : `question number ${i}`));
    const out = await (await encoder()).embed(texts);
    expect(out).toHaveLength(40);
    const [again] = await (await encoder()).embed(['question number 39']);
    expect(cosine(out[39]!, again!)).toBeGreaterThan(0.999);
  }, 60_000);

  it('reads a text up to 1,200 characters once normalised, so an expanding character costs no more than any other', async () => {
    const e = await encoder();
    // 2,000 x U+FDFA is 36,000 characters normalised: its tokenizer's work grows with the square (4 s of CPU before the bound).
    const expanding = '\uFDFA'.repeat(2000);
    const cpu = process.cpuUsage();
    const [v] = await e.embed([expanding]);
    const used = process.cpuUsage(cpu);
    expect((used.user + used.system) / 1000).toBeLessThan(1000);
    const [head] = await e.embed([[...expanding.normalize('NFKC')].slice(0, 1200).join('')]);
    expect(cosine(v!, head!)).toBeGreaterThan(0.999);
    // A text within the bound is read whole, its compatibility forms as the model's tokenizer reads them.
    const [plain, wide] = await e.embed(['where is my order', 'ｗｈｅｒｅ ｉｓ ｍｙ ｏｒｄｅｒ']);
    expect(cosine(plain!, wide!)).toBeGreaterThan(0.999);
  }, 60_000);

  it("reads a customer's message up to MESSAGE_TOKENS word pieces, and a shorter one whole", async () => {
    const e = await encoder();
    // Random letters are a word piece for every one or two: 100 of them pass the message's bound,
    // and the words after them are read only without it.
    let seed = 7;
    const letters = Array.from({ length: 100 }, () => {
      seed = (seed * 48271) % 2147483647;
      return String.fromCharCode(97 + (seed % 26));
    }).join('');
    const withTail = `${letters} where is my refund for the broken bike`;
    const [head, cut] = await e.embed([letters, withTail], MESSAGE_TOKENS);
    const [headWhole, whole] = await e.embed([letters, withTail]);
    expect(cosine(head!, cut!)).toBeGreaterThan(0.999);
    expect(cosine(headWhole!, whole!)).toBeLessThan(0.99);
    const ordinary = 'hi, I ordered a blue bike last week and it has not arrived yet, where is it?';
    const [capped, uncapped] = [...(await e.embed([ordinary], MESSAGE_TOKENS)), ...(await e.embed([ordinary]))];
    expect(cosine(capped!, uncapped!)).toBeGreaterThan(0.9999);
  }, 60_000);

  it("reads no more than 32 word pieces of a customer's message, the 32nd included", async () => {
    // "▁order" is one piece: the first 32 of these messages are the same, and what follows is not read.
    // Each piece costs the model ~0.6 ms of CPU, and an adversarial chat message has 100 ms in all.
    const e = await encoder();
    expect(MESSAGE_TOKENS).toBe(32);
    const orders = (n: number) => 'order '.repeat(n);
    const [bike, weather] = await e.embed([`${orders(32)}bike`, `${orders(32)}weather forecast`], MESSAGE_TOKENS);
    expect(cosine(bike!, weather!)).toBeGreaterThan(0.9999);
    const [bike31, weather31] = await e.embed([`${orders(31)}bike`, `${orders(31)}weather`], MESSAGE_TOKENS);
    expect(cosine(bike31!, weather31!)).toBeLessThan(0.9999);
  }, 60_000);

  it('cuts texts into model calls of at most 8 texts and, past the first, 1,200 characters, in order', () => {
    const short = Array.from({ length: 10 }, (_, i) => `text ${i}`);
    expect(batches(short).map((b) => b.length)).toEqual([8, 2]);
    const long = 'x'.repeat(600);
    expect(batches([long, long, long, 'a', long + long + long]).map((b) => b.length)).toEqual([2, 2, 1]);
    expect(batches([long, long, long, 'a', long + long + long]).flat()).toEqual([
      long,
      long,
      long,
      'a',
      long + long + long,
    ]);
    expect(batches([])).toEqual([]);
  });
});
