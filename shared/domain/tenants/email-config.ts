import * as z from 'zod/mini';

// Settings `config.email`: how the email channel answers and sends (docs/API.md, Email).

export const AUTO_REPLY = ['off', 'knowledge'] as const;
const PER_HOUR = 'must be a whole number from 1 to 100000';
const ADDRESS = /^[A-Za-z0-9._%+-]{1,64}@[A-Za-z0-9-]{1,63}(\.[A-Za-z0-9-]{1,63})+$/;

export const EmailConfig = z.strictObject(
  {
    autoReply: z.optional(z.enum(AUTO_REPLY, { message: `must be ${AUTO_REPLY.join(' or ')}` })),
    fromAddress: z.optional(
      z.nullable(
        z
          .string({ message: 'must be an email address' })
          .check(
            z.maxLength(254, 'must be at most 254 characters'),
            z.regex(ADDRESS, 'must be an email address on a domain verified in SES'),
          ),
      ),
    ),
    inboundPerHour: z.optional(
      z.number({ message: PER_HOUR }).check(z.int(PER_HOUR), z.gte(1, PER_HOUR), z.lte(100_000, PER_HOUR)),
    ),
  },
  { message: 'must be an object { autoReply, fromAddress, inboundPerHour }; inboundAddress is shown, not set' },
);

export const EMAIL_DEFAULTS = { autoReply: 'off' as const, inboundPerHour: 500 };

/** `config.email` as kept, over the defaults. */
export function emailSettings(config: Record<string, unknown>) {
  const e = (config.email ?? {}) as Record<string, unknown>;
  return {
    autoReply: e.autoReply === 'knowledge' ? ('knowledge' as const) : EMAIL_DEFAULTS.autoReply,
    fromAddress: typeof e.fromAddress === 'string' ? e.fromAddress : null,
    inboundPerHour: typeof e.inboundPerHour === 'number' ? e.inboundPerHour : EMAIL_DEFAULTS.inboundPerHour,
  };
}
