import * as z from 'zod/mini';
import { declareAdmin } from '../route.ts';
import { MEMBER_STATUSES, ROLES } from '#shared/core/vocabulary.ts';
import { LIMITS } from '#shared/domain/limits.ts';
import { EmptyQuery, email } from '../schema.ts';

// Request and response schemas of /members; the OpenAPI document is generated from them.
const role = z.enum(ROLES, { message: `must be one of ${ROLES.join(', ')}` });

export const MemberParams = z.strictObject({
  id: z
    .string()
    .check(
      z.minLength(1, 'must not be empty'),
      z.maxLength(200, 'must be at most 200 characters'),
      z.regex(/^[^/]+$/, 'must not contain a slash'),
    ),
});
export const InviteMemberBody = z.strictObject({
  email: email(),
  role,
});
export const PatchMemberBody = z.strictObject({ role });

export const Member = z.object({
  id: z.string(),
  userId: z.nullable(z.string()),
  email: z.nullable(z.string()),
  role,
  status: z.enum(MEMBER_STATUSES),
  createdAt: z.iso.datetime(),
  displayName: z
    .string()
    .check(
      z.describe(
        'the name on their messages: the one they chose (`PATCH /auth/me`), else a readable form of ' +
          'their email ("jane.doe@x.com" is "Jane Doe"), else `Support` (an address of a role, such as `owner@…`)',
      ),
    ),
});
export const MemberList = z.object({ items: z.array(Member) });

export const listMembers = declareAdmin('GET', '/members', 'list-members', 'admin', {
  table: 'read',
  query: EmptyQuery,
  response: MemberList,
  status: 200,
  summary: 'Members and invitations',
});

export const inviteMember = declareAdmin('POST', '/members', 'invite-member', 'owner', {
  table: 'write',
  body: InviteMemberBody,
  status: 201,
  response: Member,
  idempotent: true,
  conflicts: ['CONFLICT', 'IDEMPOTENCY_IN_PROGRESS'],
  summary: 'Invite a user by email',
  description:
    'The user whose token carries that `email` joins with that role on their next `GET /auth/me`. An email already a ' +
    `member or invited, or a tenant that has ${LIMITS.membersPerTenant} members and pending invitations together: 409 \`CONFLICT\`.`,
});

export const patchMember = declareAdmin('PATCH', '/members/{id}', 'patch-member', 'owner', {
  table: 'write',
  params: MemberParams,
  body: PatchMemberBody,
  status: 200,
  response: Member,
  conflicts: ['CONFLICT'],
  summary: "Change a member's role",
  description: 'The last owner cannot be demoted (409 `CONFLICT`).',
});

export const deleteMember = declareAdmin('DELETE', '/members/{id}', 'delete-member', 'owner', {
  table: 'write',
  params: MemberParams,
  status: 204,
  conflicts: ['CONFLICT'],
  summary: 'Remove a member or revoke an invitation',
  description: 'The last owner cannot be removed (409 `CONFLICT`).',
});

export const routes = [listMembers, inviteMember, patchMember, deleteMember];
