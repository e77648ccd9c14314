// Namespace import: esbuild tree-shakes it (a named `z` pulls in all of zod, ~450 KB).
import * as z from 'zod';

// Schema building blocks shared by every route, so the rules of CONTRACT section 1 live in one place.

const codePoints = (s: string) => [...s].length;

/** A string trimmed, then measured in Unicode code points (an emoji counts as one). */
export const text = (min: number, max: number) =>
  z.string().trim().superRefine((s, ctx) => {
    const n = codePoints(s);
    if (n < min) ctx.addIssue({ code: 'custom', message: min === 1 ? 'must not be empty' : `must be at least ${min} characters` });
    else if (n > max) ctx.addIssue({ code: 'custom', message: `must be at most ${max} characters` });
  }).meta({ minLength: min, maxLength: max });

export const uuid = () => z.uuid({ message: 'must be a UUID' });
export const IdParams = z.strictObject({ id: uuid() });

const PAGE_SIZE = 'must be a whole number from 1 to 100';

/** `limit` and `cursor` of every paginated list. */
export const pageQuery = {
  // Digits only: Number() would also take '0x10', '1e2' or ' 5 '.
  limit: z.string().regex(/^[0-9]{1,3}$/, PAGE_SIZE).transform(Number)
    .pipe(z.number().int().min(1, PAGE_SIZE).max(100, PAGE_SIZE)).default(20),
  cursor: z.string().min(1).max(2048).optional(),
};

export const EmptyQuery = z.strictObject({});
