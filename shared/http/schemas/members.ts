import * as z from 'zod';
import { ROLES } from '#shared/routes.ts';

// Request and response schemas of /members; the OpenAPI document is generated from them.
const role = z.enum(ROLES, { message: `must be one of ${ROLES.join(', ')}` });

export const MemberParams = z.strictObject({
  id: z.string().min(1, 'must not be empty').max(200, 'must be at most 200 characters').regex(/^[^/]+$/, 'must not contain a slash'),
});
export const InviteMemberBody = z.strictObject({
  email: z.string().trim().max(254, 'must be at most 254 characters').pipe(z.email({ message: 'must be an email address' }))
    .transform((e) => e.toLowerCase()),
  role,
});
export const PatchMemberBody = z.strictObject({ role });

export const Member = z.object({
  id: z.string(), userId: z.string().nullable(), email: z.string().nullable(), role,
  status: z.enum(['active', 'invited']), createdAt: z.iso.datetime(),
});
export const MemberList = z.object({ items: z.array(Member) });
