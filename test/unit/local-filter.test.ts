import { describe, expect, it } from 'vitest';
import { eventDispatcher } from '#shared/edge/triggers.ts';
import { compileFilter } from '../../local/filter.ts';

// Lambda event filtering as the local runtime's stream mapping applies it.

const record = (eventName: string, image: Record<string, unknown> | undefined) => ({
  eventID: '1',
  eventName,
  eventVersion: '1.1',
  eventSource: 'aws:dynamodb',
  awsRegion: 'us-east-1',
  dynamodb: {
    Keys: { pk: { S: 'p' }, sk: { S: 's' } },
    ...(image ? { NewImage: image } : {}),
    SequenceNumber: '1',
    StreamViewType: 'NEW_IMAGE',
  },
});

describe("the event dispatcher's filter", () => {
  const passes = compileFilter(eventDispatcher.filter);
  it('lets inserted event items through', () => {
    expect(passes(record('INSERT', { type: { S: 'event' }, event: { M: {} } }))).toBe(true);
  });
  it('stops other items, other event names and records without a new image', () => {
    expect(passes(record('INSERT', { type: { S: 'conversation' } }))).toBe(false);
    expect(passes(record('INSERT', { other: { S: 'event' } }))).toBe(false);
    expect(passes(record('MODIFY', { type: { S: 'event' } }))).toBe(false);
    expect(passes(record('REMOVE', undefined))).toBe(false);
    expect(passes(record('INSERT', { type: { N: '1' } }))).toBe(false);
  });
});

describe('compileFilter', () => {
  it('ANDs keys and ORs the values of a leaf', () => {
    const f = compileFilter({ a: ['x', 'y'], b: [1] });
    expect(f({ a: 'x', b: 1 })).toBe(true);
    expect(f({ a: 'y', b: 1, c: 'anything' })).toBe(true);
    expect(f({ a: 'z', b: 1 })).toBe(false);
    expect(f({ a: 'x', b: 2 })).toBe(false);
    expect(f({ a: 'x' })).toBe(false);
  });

  it('matches exact values by type: a number is not its string, null is not absent', () => {
    expect(compileFilter({ n: [5] })({ n: '5' })).toBe(false);
    expect(compileFilter({ n: ['5'] })({ n: 5 })).toBe(false);
    expect(compileFilter({ b: [true] })({ b: true })).toBe(true);
    const nullable = compileFilter({ v: [null] });
    expect(nullable({ v: null })).toBe(true);
    expect(nullable({})).toBe(false);
    expect(compileFilter({ s: [''] })({ s: '' })).toBe(true);
  });

  it('matches when one element of an array value matches', () => {
    const f = compileFilter({ tags: ['red'] });
    expect(f({ tags: ['blue', 'red'] })).toBe(true);
    expect(f({ tags: ['blue'] })).toBe(false);
    expect(compileFilter({ items: { kind: ['a'] } })({ items: [{ kind: 'b' }, { kind: 'a' }] })).toBe(true);
  });

  it('does not match a leaf pattern against an object, nor a nested pattern against a scalar', () => {
    expect(compileFilter({ a: ['x'] })({ a: { b: 'x' } })).toBe(false);
    expect(compileFilter({ a: { b: ['x'] } })({ a: 'x' })).toBe(false);
  });

  it('prefix, suffix and equals-ignore-case work on strings only', () => {
    const f = compileFilter({ s: [{ prefix: 'evt_' }] });
    expect(f({ s: 'evt_1' })).toBe(true);
    expect(f({ s: 'msg_1' })).toBe(false);
    expect(f({ s: 1 })).toBe(false);
    expect(compileFilter({ s: [{ suffix: '.png' }] })({ s: 'a.png' })).toBe(true);
    expect(compileFilter({ s: [{ 'equals-ignore-case': 'Event' }] })({ s: 'EVENT' })).toBe(true);
  });

  it('exists: true wants a leaf value, exists: false wants the key absent', () => {
    const has = compileFilter({ d: { NewImage: { type: [{ exists: true }] } } });
    expect(has({ d: { NewImage: { type: 'x' } } })).toBe(true);
    expect(has({ d: { NewImage: { type: { S: 'x' } } } })).toBe(false);
    expect(has({ d: { NewImage: {} } })).toBe(false);
    expect(has({})).toBe(false);
    const lacks = compileFilter({ d: { OldImage: [{ exists: false }] } });
    expect(lacks({ d: {} })).toBe(true);
    expect(lacks({})).toBe(true);
    expect(lacks({ d: { OldImage: 'x' } })).toBe(false);
  });

  it('anything-but and numeric', () => {
    const but = compileFilter({ e: [{ 'anything-but': ['REMOVE', 'MODIFY'] }] });
    expect(but({ e: 'INSERT' })).toBe(true);
    expect(but({ e: 'REMOVE' })).toBe(false);
    expect(but({})).toBe(false);
    expect(compileFilter({ e: [{ 'anything-but': { prefix: 'tmp' } }] })({ e: 'tmp1' })).toBe(false);
    const range = compileFilter({ n: [{ numeric: ['>', 0, '<=', 5] }] });
    expect(range({ n: 5 })).toBe(true);
    expect(range({ n: 0 })).toBe(false);
    expect(range({ n: '3' })).toBe(false);
  });

  it('refuses patterns it would otherwise apply wrongly', () => {
    expect(() => compileFilter({ a: 'x' })).toThrow(/must be an array/);
    expect(() => compileFilter({ a: [] })).toThrow(/empty array/);
    expect(() => compileFilter({ a: [{ wildcard: '*' }] })).toThrow(/unsupported operator/);
    expect(() => compileFilter({ a: [{ prefix: 1 }] })).toThrow(/takes a string/);
    expect(() => compileFilter({ a: [{ prefix: 'a', suffix: 'b' }] })).toThrow(/exactly one key/);
    expect(() => compileFilter({ a: [{ numeric: ['~', 1] }] })).toThrow(/numeric/);
    expect(() => compileFilter({ a: [['nested']] })).toThrow(/not a value or an operator/);
  });
});
