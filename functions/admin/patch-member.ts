import { adminRoute } from '#shared/http/kit.ts';
import { ok } from '#shared/http/response.ts';
import { MemberParams, PatchMemberBody } from '#shared/http/schemas/members.ts';
import { changeRole } from '#shared/domain/members.ts';

export const handler = adminRoute(
  { params: MemberParams, body: PatchMemberBody },
  async ({ membership, params, body }) => ok(await changeRole(membership, params.id, body.role)),
);
