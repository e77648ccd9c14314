import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { buildWidget } from '../../web/widget/build.ts';
import { contrast, palette } from '../../web/widget/src/colour.ts';
import { backoff, retryAfterSeconds } from '../../web/widget/src/retry.ts';

describe('widget.js', () => {
  const built = buildWidget();

  it('stays within its budget: 20 KB gzipped', () => {
    expect(built.gzipBytes).toBeLessThanOrEqual(20 * 1024);
  });

  it('is one IIFE with no eval, no code from strings and no HTML parsing of text', () => {
    expect(built.code.startsWith('"use strict";(()=>{') || built.code.startsWith('(()=>{')).toBe(true);
    for (const banned of [
      'eval(',
      'new Function',
      'Function(',
      'innerHTML',
      'outerHTML',
      'insertAdjacentHTML',
      'document.write',
      'setAttribute("style"',
      '.cssText',
    ]) {
      expect(built.code.includes(banned), banned).toBe(false);
    }
  });
});

describe('the theme palette', () => {
  const hex = fc
    .tuple(fc.integer({ min: 0, max: 255 }), fc.integer({ min: 0, max: 255 }), fc.integer({ min: 0, max: 255 }))
    .map((c) => `#${c.map((v) => v.toString(16).padStart(2, '0')).join('')}`);

  it('falls back to the default colour for anything but a hex colour', () => {
    for (const bad of [undefined, '', 'red', '#12', '#1234567', 'url(x)', '#2563eb; color: red'])
      expect(palette(bad).accent).toBe('#2563eb');
    expect(palette('#ABC').accent).toBe('#abc');
  });

  it('keeps white text on dark colours and switches to dark text on light ones', () => {
    expect(palette('#2563eb').onAccent).toBe('#ffffff');
    expect(palette('#fde047').onAccent).toBe('#111827');
  });

  it('always reaches 4.5:1 for text on the accent and for accent-coloured text on the panel', () => {
    fc.assert(
      fc.property(hex, (c) => {
        const p = palette(c);
        expect(contrast(p.accent, p.onAccent)).toBeGreaterThanOrEqual(4.5);
        expect(contrast(p.accentText, '#f3f4f6')).toBeGreaterThanOrEqual(4.5);
        expect(contrast(p.accentText, '#ffffff')).toBeGreaterThanOrEqual(4.5);
      }),
      { numRuns: 2000 },
    );
  });

  it('computes WCAG contrast ratios', () => {
    expect(contrast('#000000', '#ffffff')).toBeCloseTo(21, 5);
    expect(contrast('#777777', '#ffffff')).toBeCloseTo(4.48, 2);
  });
});

describe('reconnecting', () => {
  it('waits exponentially longer, between half and all of 1 s x 2^attempt, never over 30 s', () => {
    expect([0, 1, 2, 3, 4, 5, 6, 10].map((a) => backoff(a, () => 1))).toEqual([
      1000, 2000, 4000, 8000, 16000, 30000, 30000, 30000,
    ]);
    expect([0, 1, 2, 5].map((a) => backoff(a, () => 0))).toEqual([500, 1000, 2000, 15000]);
  });
});

describe('Retry-After', () => {
  it('reads seconds or an HTTP date, and nothing else', () => {
    expect(retryAfterSeconds('2')).toBe(2);
    expect(retryAfterSeconds(' 30 ')).toBe(30);
    const inTen = new Date(Date.now() + 10_000).toUTCString();
    expect(retryAfterSeconds(inTen)).toBeGreaterThanOrEqual(9);
    expect(retryAfterSeconds(inTen)).toBeLessThanOrEqual(10);
    expect(retryAfterSeconds(new Date(Date.now() - 60_000).toUTCString())).toBe(0);
    for (const bad of [null, '', 'soon', '-1']) expect(retryAfterSeconds(bad)).toBeNull();
  });
});
