import { allOf, type Role } from './api/types.ts';

export type { Role };
/** Lowest to highest; checked against the generated union. */
export const ROLES = allOf<Role>()(['viewer', 'agent', 'admin', 'owner']);

/** Whether `role` is `min` or higher. The server stays the authority; this only hides controls. */
export const atLeast = (role: Role | null | undefined, min: Role) =>
  role != null && ROLES.indexOf(role) >= ROLES.indexOf(min);
