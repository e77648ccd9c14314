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

/** `limit` and `cursor` of every paginated list. */
export const pageQuery = {
  limit: z.coerce.number({ message: 'must be a whole number from 1 to 100' }).int('must be a whole number from 1 to 100')
    .min(1, 'must be a whole number from 1 to 100').max(100, 'must be a whole number from 1 to 100').default(20),
  cursor: z.string().min(1).max(2048).optional(),
};

export const EmptyQuery = z.strictObject({});
