// WCAG 2.x contrast: the tenant picks one colour; the widget derives readable text colours from it.

const HEX = /^#(?:[0-9a-f]{3}|[0-9a-f]{6})$/i;
export const DEFAULT_COLOUR = '#2563eb';

type Rgb = [number, number, number];

function rgb(hex: string): Rgb {
  const h = hex.length === 4 ? hex.replace(/[0-9a-f]/gi, (c) => c + c) : hex;
  return [1, 3, 5].map((i) => parseInt(h.slice(i, i + 2), 16)) as Rgb;
}

const toHex = (c: Rgb) => `#${c.map((v) => Math.round(v).toString(16).padStart(2, '0')).join('')}`;

function luminance([r, g, b]: Rgb): number {
  const lin = (v: number) => {
    const s = v / 255;
    return s <= 0.03928 ? s / 12.92 : ((s + 0.055) / 1.055) ** 2.4;
  };
  return 0.2126 * lin(r) + 0.7152 * lin(g) + 0.0722 * lin(b);
}

export function contrast(a: string, b: string): number {
  const [hi, lo] = [luminance(rgb(a)), luminance(rgb(b))].sort((x, y) => y - x) as [number, number];
  return (hi + 0.05) / (lo + 0.05);
}

/** Darkens `hex` towards black until it reaches `ratio` against `background`. */
function darkenUntil(hex: string, background: string, ratio: number): string {
  const base = rgb(hex);
  for (let k = 0; k <= 1; k += 0.05) {
    const c = toHex(base.map((v) => v * (1 - k)) as Rgb);
    if (contrast(c, background) >= ratio) return c;
  }
  return '#000000';
}

export interface Palette {
  /** Fills: launcher, header, the customer's bubbles. */
  accent: string;
  /** Text and icons on `accent`: white, else near-black, else black (white or black always reaches 4.5:1). */
  onAccent: string;
  /** The accent as text or focus ring on the panel's light greys (links, outlines): at least 4.5:1. */
  accentText: string;
}

export function palette(colour: string | undefined): Palette {
  const accent = colour && HEX.test(colour) ? colour.toLowerCase() : DEFAULT_COLOUR;
  const onAccent = ['#ffffff', '#111827'].find((c) => contrast(accent, c) >= 4.5) ?? '#000000';
  return { accent, onAccent, accentText: darkenUntil(accent, '#f3f4f6', 4.5) };
}
