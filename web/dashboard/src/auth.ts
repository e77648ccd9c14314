import { UserManager, WebStorageStateStore, type User } from 'oidc-client-ts';
import type { DashboardConfig } from './config.ts';

// Sign-in with OpenID Connect, authorization code with PKCE (oidc-client-ts does the protocol).
// Tokens live in localStorage, so one sign-in serves every tab of the dashboard (a link opened in a
// new tab, a second window) and survives a reload; each tab renews them silently before expiry
// with the refresh token, and a tab hears another's sign-in, renewal and sign-out through the
// `storage` event (Root). The trade-off: script injected into this origin could read them, as it
// could use a sessionStorage token from the page anyway; the dashboard has no third-party script,
// renders no HTML from data and ships a CSP without 'unsafe-inline' (docs/DASHBOARD.md, "Sign-in storage").

export const CALLBACK_PATH = '/callback';

export function createUserManager(config: DashboardConfig): UserManager {
  return new UserManager({
    authority: config.issuer,
    client_id: config.clientId,
    redirect_uri: `${location.origin}${CALLBACK_PATH}`,
    post_logout_redirect_uri: `${location.origin}/`,
    response_type: 'code',
    scope: config.scope ?? 'openid email profile',
    automaticSilentRenew: true,
    userStore: new WebStorageStateStore({ store: window.localStorage }),
    stateStore: new WebStorageStateStore({ store: window.localStorage }),
  });
}

/** Finishes a redirect back from the issuer; returns where the user was going. */
export async function completeSignIn(um: UserManager): Promise<string> {
  const user = await um.signinRedirectCallback();
  const to =
    typeof user.state === 'string' && user.state.startsWith('/') && !user.state.startsWith('//') ? user.state : '/';
  return to;
}

/** The stored user, renewed first when its access token has expired; null when signed out. */
export async function currentUser(um: UserManager): Promise<User | null> {
  const user = await um.getUser();
  if (!user) return null;
  if (!user.expired) return user;
  try {
    return await um.signinSilent();
  } catch {
    await um.removeUser();
    return null;
  }
}

export async function signOut(um: UserManager, config: DashboardConfig): Promise<void> {
  if (config.logoutUrl) {
    // Cognito's managed login has a logout endpoint of its own, not listed in its discovery document.
    await um.removeUser();
    location.assign(config.logoutUrl);
    return;
  }
  await um.signoutRedirect();
}
