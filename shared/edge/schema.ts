// zod/mini (functional checks instead of methods) and a namespace import, so that esbuild keeps
// only what is used (classic zod's methods keep all of it in every bundle).
import * as z from 'zod/mini';
// Not `z.locales.en`: that pulls every locale into the bundle; this import is the English one only.
import { en } from 'zod/locales';
import { nameProblem } from '#shared/core/names.ts';

// Classic zod loads its English messages by itself; zod/mini has no locale until one is set. The
// API returns these messages ("Invalid input: expected string, received number", ...) in
// `errors[]`, so every module that declares request schemas imports this one, which sets it once.
z.config(en());

// Schema building blocks shared by every route, so the conventions all routes follow live in one place.

const codePoints = (s: string) => [...s].length;

/** A string trimmed, then measured in Unicode code points (an emoji counts as one). */
export const text = (min: number, max: number) =>
  z.string().check(
    z.trim(),
    z.superRefine((s, ctx) => {
      const n = codePoints(s);
      if (n < min)
        ctx.addIssue({
          code: 'custom',
          message: min === 1 ? 'must not be empty' : `must be at least ${min} characters`,
        });
      else if (n > max) ctx.addIssue({ code: 'custom', message: `must be at most ${max} characters` });
    }),
    z.meta({ minLength: min, maxLength: max }),
  );

/**
 * A name shown to others (display names, tenant and integration names, labels): `text`, and the
 * one rule of core/names.ts (no control characters, no bidirectional controls, not invisible-only).
 */
export const shownName = (min: number, max: number) =>
  text(min, max).check(
    z.superRefine((s, ctx) => {
      // An empty name already has its message from `text`; one message per field.
      const why = s === '' ? null : nameProblem(s);
      if (why) ctx.addIssue({ code: 'custom', message: why });
    }),
  );

export const uuid = () => z.uuid({ message: 'must be a UUID' });
/** An email address, trimmed and kept in lower case. */
export const email = () =>
  z.pipe(
    z.pipe(
      z.string().check(z.trim(), z.maxLength(254, 'must be at most 254 characters')),
      z.email({ message: 'must be an email address' }),
    ),
    z.transform((e) => e.toLowerCase()),
  );
export const IdParams = z.strictObject({ id: uuid() });

const PAGE_SIZE = 'must be a whole number from 1 to 100';

/** `limit` and `cursor` of every paginated list. */
export const pageQuery = {
  // Digits only: Number() would also take '0x10', '1e2' or ' 5 '.
  limit: z._default(
    z.pipe(
      z.pipe(z.string().check(z.regex(/^[0-9]{1,3}$/, PAGE_SIZE)), z.transform(Number)),
      z.number().check(z.int(), z.gte(1, PAGE_SIZE), z.lte(100, PAGE_SIZE)),
    ),
    20,
  ),
  cursor: z.optional(z.string().check(z.minLength(1), z.maxLength(2048))),
};

export const EmptyQuery = z.strictObject({});

// What the table and its client keep of a JSON value: numbers 0 or from 1e-130 to the largest safe
// integer in size (the client refuses larger ones), no empty map key, maps and lists 32 levels deep
// (kept JSON may also travel inside an audit entry's `changes`, hence half of that).
const MAX_NESTING = 16;
const storableNumber = (n: number) => n === 0 || (Math.abs(n) >= 1e-130 && Math.abs(n) <= Number.MAX_SAFE_INTEGER);

/** The first part of a JSON value that the table could not keep, with its path; null when all of it fits. */
function unstorable(
  v: unknown,
  path: Array<string | number>,
  depth: number,
): { path: Array<string | number>; message: string } | null {
  if (typeof v === 'number') {
    return storableNumber(v)
      ? null
      : { path, message: `must be 0 or a number from 1e-130 to ${Number.MAX_SAFE_INTEGER} in size` };
  }
  if (v === null || typeof v !== 'object') return null;
  if (depth >= MAX_NESTING) return { path, message: `must not nest more than ${MAX_NESTING} levels deep` };
  for (const [k, x] of Array.isArray(v) ? v.entries() : Object.entries(v)) {
    if (k === '') return { path, message: 'must not have an empty key' };
    const found = unstorable(x, [...path, k], depth + 1);
    if (found) return found;
  }
  return null;
}

/**
 * A JSON object of the client's own that is kept as it is (settings config, integration config):
 * refused, with the path of the part, where the table could not keep it, instead of failing there.
 */
export const keptJson = (message: string) =>
  z.record(z.string(), z.unknown(), { message }).check(
    z.superRefine((v, ctx) => {
      const found = unstorable(v, [], 1);
      if (found) ctx.addIssue({ code: 'custom', path: found.path, message: found.message });
    }),
  );
