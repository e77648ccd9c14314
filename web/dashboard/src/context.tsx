import { createContext, useContext } from 'react';
import type { User, UserManager } from 'oidc-client-ts';
import type { Api } from './api/client.ts';
import type { Me } from './api/types.ts';
import type { DashboardConfig } from './config.ts';
import type { Role } from './roles.ts';

export interface AppContextValue {
  config: DashboardConfig;
  api: Api;
  userManager: UserManager;
  user: User;
  signOut(): void;
}

export const AppContext = createContext<AppContextValue | null>(null);

export function useApp(): AppContextValue {
  const v = useContext(AppContext);
  if (!v) throw new Error('useApp outside the signed-in app');
  return v;
}

/** GET /auth/me of a user who is a member of a tenant. */
export interface Member {
  sub: Me['user']['sub'];
  email: Me['user']['email'];
  role: Role;
  tenant: NonNullable<Me['tenant']>;
  displayName: Me['displayName'];
  displayNameChosen: Me['displayNameChosen'];
}
export const MemberContext = createContext<Member | null>(null);

/** The signed-in member of a tenant (inside the onboarded app only). */
export function useMember(): Member {
  const v = useContext(MemberContext);
  if (!v) throw new Error('useMember outside a tenant');
  return v;
}

/** Set in this browser by the owner who deleted a team: only then is there a deletion to follow (others would read a 404). */
export const deletedTeamHint = (sub: string) => `support-dashboard:deleted-team:${sub}`;
