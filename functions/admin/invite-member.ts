import { adminRoute } from '#shared/http/kit.ts';
import { created } from '#shared/http/response.ts';
import { InviteMemberBody } from '#shared/http/schemas/members.ts';
import { inviteMember } from '#shared/domain/members.ts';

export const handler = adminRoute(
  { body: InviteMemberBody },
  async ({ membership, body }) => created(await inviteMember(membership, body)),
);
