export const ROLES = ['viewer', 'agent', 'admin', 'owner'] as const;
export type Role = (typeof ROLES)[number];

/** Whether `role` is `min` or higher. The server stays the authority; this only hides controls. */
export const atLeast = (role: Role | null | undefined, min: Role) => role != null && ROLES.indexOf(role) >= ROLES.indexOf(min);
