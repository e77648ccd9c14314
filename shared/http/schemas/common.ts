import * as z from 'zod/mini';

// Response schema pieces shared by the admin list routes (for the OpenAPI document).
export const Page = <T extends z.ZodMiniType>(item: T) =>
  z.object({ items: z.array(item), nextCursor: z.nullable(z.string()).check(z.meta({ description: 'opaque; pass back as `cursor`' })) });
export const Timestamp = z.iso.datetime({ precision: 3 }).check(z.meta({ example: '2026-11-22T10:15:30.123Z' }));
