import * as z from 'zod';
import type { ZodType } from 'zod';

// Response schema pieces shared by the admin list routes (for the OpenAPI document).
export const Page = <T extends ZodType>(item: T) =>
  z.object({ items: z.array(item), nextCursor: z.string().nullable().meta({ description: 'opaque; pass back as `cursor`' }) });
export const Timestamp = z.iso.datetime({ precision: 3 }).meta({ example: '2026-11-22T10:15:30.123Z' });
