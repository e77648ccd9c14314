import { adminRoute } from '#shared/http/kit.ts';
import { ok } from '#shared/http/response.ts';
import { EmptyQuery } from '#shared/http/schema.ts';
import { listMembers } from '#shared/domain/members.ts';

export const handler = adminRoute({ query: EmptyQuery }, async ({ membership }) => ok(await listMembers(membership)));
