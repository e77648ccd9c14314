import * as z from 'zod/mini';
import { ROLES } from '#shared/routes.ts';
// For its side effect: the English messages (see schema.ts).
import '../schema.ts';

// Request and response schemas of /members; the OpenAPI document is generated from them.
const role = z.enum(ROLES, { message: `must be one of ${ROLES.join(', ')}` });

export const MemberParams = z.strictObject({
  id: z.string().check(
    z.minLength(1, 'must not be empty'), z.maxLength(200, 'must be at most 200 characters'), z.regex(/^[^/]+$/, 'must not contain a slash'),
  ),
});
export const InviteMemberBody = z.strictObject({
  email: z.pipe(
    z.pipe(z.string().check(z.trim(), z.maxLength(254, 'must be at most 254 characters')), z.email({ message: 'must be an email address' })),
    z.transform((e) => e.toLowerCase()),
  ),
  role,
});
export const PatchMemberBody = z.strictObject({ role });

export const Member = z.object({
  id: z.string(), userId: z.nullable(z.string()), email: z.nullable(z.string()), role,
  status: z.enum(['active', 'invited']), createdAt: z.iso.datetime(),
});
export const MemberList = z.object({ items: z.array(Member) });
