import { adminRoute } from '#shared/http/kit.ts';
import { noContent } from '#shared/http/response.ts';
import { MemberParams } from '#shared/http/schemas/members.ts';
import { removeMember } from '#shared/domain/members.ts';

export const handler = adminRoute({ params: MemberParams }, async ({ membership, params }) => {
  await removeMember(membership, params.id);
  return noContent();
});
