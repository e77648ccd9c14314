import { GetCommand } from '@aws-sdk/lib-dynamodb';
import type { Role } from '#shared/routes.ts';
import { db, tableName } from './client.ts';
import { keys } from './keys.ts';

export interface Membership { tenantId: string; role: Role; userId: string }

export const memberships = {
  /** The user's membership through the `USER#sub` lookup item; one GetItem. */
  async ofUser(sub: string): Promise<Membership | null> {
    const r = await db.send(new GetCommand({ TableName: tableName(), Key: keys.user(sub) }));
    if (!r.Item) return null;
    return { tenantId: r.Item.tenantId as string, role: r.Item.role as Role, userId: sub };
  },
};
