import { describe, expect, it } from 'vitest';
import {
  checkPattern,
  type EntitySpec,
  extractEntities,
  fillTemplate,
  missingEntities,
  promptFor,
  slotValue,
  templateNames,
} from '#shared/nlu/index.ts';

const one = (type: EntitySpec['type'], text: string, pattern?: string): string | undefined =>
  extractEntities(text, [{ name: 'x', type, ...(pattern ? { pattern } : {}) }]).x;

describe('built-in entity types', () => {
  it('email', () => {
    expect(one('email', 'reach me at Jane.Doe+shop@mail.example.co.uk, thanks')).toBe(
      'Jane.Doe+shop@mail.example.co.uk',
    );
    expect(one('email', 'my email is bob@example')).toBeUndefined();
    expect(one('email', 'no at sign here')).toBeUndefined();
  });

  it('phone: 7 to 15 digits with separators, not dates or short numbers', () => {
    expect(one('phone', 'call me on +44 20 7946 0958 please')).toBe('+44 20 7946 0958');
    expect(one('phone', 'my number is (555) 123-4567.')).toBe('(555) 123-4567');
    expect(one('phone', 'order 12345 arrived')).toBeUndefined();
    expect(one('phone', 'ordered on 2025-03-14')).toBeUndefined();
  });

  it('number: first standalone number, thousands separators removed', () => {
    expect(one('number', 'I need 3 shirts')).toBe('3');
    expect(one('number', 'it cost 1,299.50 dollars')).toBe('1299.50');
    expect(one('number', 'temperature is -4 today')).toBe('-4');
    expect(one('number', 'version v2 is out')).toBeUndefined();
    expect(one('number', 'no digits')).toBeUndefined();
  });

  it('date: numeric, written and relative forms', () => {
    expect(one('date', 'delivered on 2025-03-14?')).toBe('2025-03-14');
    expect(one('date', 'ordered 14/03/2025 at noon')).toBe('14/03/2025');
    expect(one('date', 'it came on the 3rd of March 2025')).toBe('3rd of March 2025');
    expect(one('date', 'arriving March 14, 2025')).toBe('March 14, 2025');
    expect(one('date', 'can it come tomorrow')).toBe('tomorrow');
    expect(one('date', 'see you next Monday')).toBe('next Monday');
    expect(one('date', 'I ordered 3 items')).toBeUndefined();
  });

  it('order_id: after the word order, with #, or a long code', () => {
    expect(one('order_id', 'where is my order 12345')).toBe('12345');
    expect(one('order_id', 'Order #A-98231 has not arrived')).toBe('A-98231');
    expect(one('order_id', 'order number: ORD-2024-00042')).toBe('ORD-2024-00042');
    expect(one('order_id', 'my parcel #778812 is late')).toBe('778812');
    expect(one('order_id', 'tracking 4411902 please')).toBe('4411902');
    expect(one('order_id', 'I ordered in 2024')).toBeUndefined();
    expect(one('order_id', 'my order is late')).toBeUndefined();
  });

  it('url: http(s) and www, trailing punctuation stripped', () => {
    expect(one('url', 'see https://shop.example.com/p/42?ref=a.')).toBe('https://shop.example.com/p/42?ref=a');
    expect(one('url', '(www.example.org)')).toBe('www.example.org');
    expect(one('url', 'email me at a@b.com')).toBeUndefined();
  });

  it('returns only the declared entities that were found', () => {
    const specs: EntitySpec[] = [
      { name: 'order', type: 'order_id' },
      { name: 'mail', type: 'email' },
      { name: 'when', type: 'date' },
    ];
    expect(extractEntities('order 55321, mail me at a@example.com', specs)).toEqual({
      order: '55321',
      mail: 'a@example.com',
    });
    expect(extractEntities('hello', [])).toEqual({});
  });

  it('built-ins stay fast on long hostile input (linear scanning)', () => {
    const text = `${'a'.repeat(50_000)} ${'1'.repeat(30_000)}-${'.'.repeat(20_000)}`;
    for (const type of ['email', 'phone', 'number', 'date', 'order_id', 'url'] as const) {
      expect(typeof (one(type, text) ?? '')).toBe('string');
    }
  });
});

describe('regex entities', () => {
  it('match case-insensitively; the first capture group is the value when there is one', () => {
    expect(one('regex', 'my code is SKU-ab12', 'sku-[a-z0-9]+')).toBe('SKU-ab12');
    expect(one('regex', 'voucher: WINTER25 please', 'voucher:\\s*([a-z]+\\d+)')).toBe('WINTER25');
    expect(one('regex', 'nothing here', 'sku-\\d+')).toBeUndefined();
  });

  it('hostile patterns finish on 50k characters (RE2 is linear time)', () => {
    const hostile = `${'a'.repeat(50_000)}!`;
    for (const p of ['(a+)+$', '(a|a)+$', '(a*)*b', '(a|aa)+$', '^(\\w+\\s?)+$']) {
      expect(checkPattern(p)).toBeNull();
      expect(one('regex', hostile, p)).toBeUndefined();
    }
  });

  it('checkPattern refuses what it cannot run linearly, empty, too long and empty-matching patterns', () => {
    expect(checkPattern('ord-\\d{4,10}')).toBeNull();
    expect(checkPattern('(a)\\1')).toMatch(/backreferences/);
    expect(checkPattern('(?=a)b')).toMatch(/not a valid/);
    expect(checkPattern('[a-')).toMatch(/not a valid/);
    expect(checkPattern('')).toMatch(/empty/);
    expect(checkPattern('a*')).toMatch(/empty string/);
    expect(checkPattern('a'.repeat(200))).toBeNull();
    expect(checkPattern('a'.repeat(201))).toMatch(/200/);
  });

  it('an invalid pattern extracts nothing instead of throwing', () => {
    expect(one('regex', 'aa', '(a)\\1')).toBeUndefined();
  });
});

describe('fillTemplate', () => {
  it('fills found entities, drops missing ones without leaving stray spaces', () => {
    expect(fillTemplate('Order {{order_id}} ships today.', { order_id: '123' })).toBe('Order 123 ships today.');
    expect(fillTemplate('Order {{ order_id }} ships today.', {})).toBe('Order ships today.');
    expect(fillTemplate('Thanks {{name}}, we got it.', {})).toBe('Thanks, we got it.');
    expect(fillTemplate('We will check order {{order_id}}.', {})).toBe('We will check order.');
    expect(fillTemplate('{{greeting}} Welcome back', {})).toBe('Welcome back');
    expect(fillTemplate('{{a}} and {{b}}', { a: 'x', b: 'y' })).toBe('x and y');
  });

  it('inserts values literally', () => {
    expect(fillTemplate('code {{c}}', { c: '$& $1 {{c}}' })).toBe('code $& $1 {{c}}');
  });
});

describe('required entities (slots)', () => {
  const order = { name: 'order_id', type: 'order_id' as const };
  it("names a template's placeholders once each, in order", () => {
    expect(templateNames('Order {{order_id}} for {{ email }}; again {{order_id}}.')).toEqual(['order_id', 'email']);
    expect(templateNames('No placeholders.')).toEqual([]);
  });

  it('an entity the response names, or a required one, is missing until found', () => {
    const intent = {
      response: 'Order {{order_id}}.',
      entities: [
        order,
        { name: 'email', type: 'email' as const },
        { name: 'day', type: 'date' as const, required: true },
      ],
    };
    expect(missingEntities(intent, {}).map((e) => e.name)).toEqual(['order_id', 'day']);
    expect(missingEntities(intent, { order_id: '55123', day: 'today' })).toEqual([]);
  });

  it('asks with the prompt, else a plain question naming what it needs', () => {
    expect(promptFor({ ...order, required: true, prompt: 'Which order?' })).toBe('Which order?');
    expect(promptFor(order)).toBe('Could you tell me your order number?');
    expect(promptFor({ name: 'loyalty_card', type: 'number' })).toBe('Could you tell me your loyalty card?');
  });

  it('takes the bare answer to the question, and nothing that does not answer it', () => {
    expect(slotValue('55123', order)).toBe('55123');
    expect(slotValue('#4411', order)).toBe('4411');
    expect(slotValue("it's A-1234.", order)).toBe('A-1234');
    expect(slotValue('my order number is 99812', order)).toBe('99812');
    expect(slotValue('how do I reset my password', order)).toBeNull();
    expect(slotValue('12', order)).toBeNull();
    expect(slotValue('send it to ann@example.com please', { name: 'email', type: 'email' })).toBe('ann@example.com');
  });
});
