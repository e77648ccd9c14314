import { userRoute } from '#shared/edge/kit.ts';
import * as api from '#shared/edge/routes/tenant.ts';
import { deletionStatus } from '#shared/domain/privacy/deletion.ts';

// Any valid token: the requester was unlinked when the deletion began.
export const handler = userRoute(api.getTenantDeletion, async ({ user }) => deletionStatus(user.sub));
