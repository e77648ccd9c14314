import { useEffect, useMemo, useRef, useState } from 'react';
import { MutationCache, QueryCache, QueryClient, QueryClientProvider } from '@tanstack/react-query';
import type { User, UserManager } from 'oidc-client-ts';
import { BrowserRouter } from 'react-router';
import { createApi } from './api/client.ts';
import { ApiError } from './api/problem.ts';
import { signOut } from './auth.ts';
import type { DashboardConfig } from './config.ts';
import { AppContext } from './context.tsx';
import { Shell } from './Shell.tsx';

interface Props {
  config: DashboardConfig;
  userManager: UserManager;
  initialUser: User | null;
  initialError: string | null;
}

export function Root({ config, userManager, initialUser, initialError }: Props) {
  const [user, setUser] = useState(initialUser);
  const [notice, setNotice] = useState(initialError);
  const userRef = useRef(user);
  userRef.current = user;

  useEffect(() => {
    const loaded = (u: User) => setUser(u);
    const unloaded = () => setUser(null);
    const expired = () => {
      setNotice('Your session has ended. Sign in again.');
      void userManager.removeUser();
    };
    userManager.events.addUserLoaded(loaded);
    userManager.events.addUserUnloaded(unloaded);
    userManager.events.addAccessTokenExpired(expired);
    userManager.events.addUserSignedOut(unloaded);
    // Another tab signed in, renewed the tokens or signed out: this tab follows (one sign-in for all).
    const shared = (e: StorageEvent) => {
      if (e.storageArea !== window.localStorage || (e.key !== null && !e.key.startsWith('oidc.user:'))) return;
      void userManager.getUser().then((u) => setUser(u && !u.expired ? u : null));
    };
    window.addEventListener('storage', shared);
    return () => {
      window.removeEventListener('storage', shared);
      userManager.events.removeUserLoaded(loaded);
      userManager.events.removeUserUnloaded(unloaded);
      userManager.events.removeAccessTokenExpired(expired);
      userManager.events.removeUserSignedOut(unloaded);
    };
  }, [userManager]);

  const api = useMemo(
    () => createApi({ baseUrl: config.apiUrl, token: () => userRef.current?.access_token ?? null }),
    [config.apiUrl],
  );
  // One cache per signed-in user, so nothing of a previous session is ever shown.
  const sub = user?.profile.sub;
  // biome-ignore lint/correctness/useExhaustiveDependencies: a new cache for each signed-in user (sub)
  const queryClient = useMemo(() => {
    const onError = (err: unknown) => {
      if (err instanceof ApiError && err.status === 401) {
        setNotice('Your session has ended. Sign in again.');
        void userManager.removeUser();
      }
      // Removed from the team while signed in: read the membership again, which shows onboarding.
      if (err instanceof ApiError && err.code === 'NOT_ONBOARDED') void client.invalidateQueries({ queryKey: ['me'] });
    };
    const client: QueryClient = new QueryClient({
      queryCache: new QueryCache({ onError }),
      mutationCache: new MutationCache({ onError }),
      defaultOptions: {
        queries: {
          staleTime: 15_000,
          retry: (count, err) => !(err instanceof ApiError && err.status < 500) && count < 2,
          refetchOnWindowFocus: false,
        },
      },
    });
    return client;
  }, [sub, userManager]);

  if (!user) return <SignIn userManager={userManager} notice={notice} demoEmail={config.demoEmail} />;
  return (
    <AppContext.Provider value={{ config, api, userManager, user, signOut: () => void signOut(userManager, config) }}>
      <QueryClientProvider client={queryClient}>
        <BrowserRouter>
          <Shell />
        </BrowserRouter>
      </QueryClientProvider>
    </AppContext.Provider>
  );
}

function SignIn({
  userManager,
  notice,
  demoEmail,
}: {
  userManager: UserManager;
  notice: string | null;
  demoEmail: string | undefined;
}) {
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  /** `hint`: the email the issuer's page starts with (OpenID's login_hint). */
  const start = (hint?: string) => {
    setBusy(true);
    const returnTo = location.pathname + location.search;
    userManager.signinRedirect({ state: returnTo, ...(hint ? { login_hint: hint } : {}) }).catch((e: unknown) => {
      setBusy(false);
      setError(`The sign-in service cannot be reached (${e instanceof Error ? e.message : String(e)}).`);
    });
  };
  return (
    <main className="center-page">
      <div className="card sign-in">
        <h1>Support dashboard</h1>
        <p>Conversations, tickets and the assistant of your support team.</p>
        {notice && (
          <p className="notice" role="status">
            {notice}
          </p>
        )}
        {error && (
          <p className="error" role="alert">
            {error}
          </p>
        )}
        <div className="row">
          <button type="button" className="primary" onClick={() => start()} disabled={busy}>
            {busy ? 'Redirecting…' : 'Sign in'}
          </button>
          {demoEmail && (
            <button type="button" onClick={() => start(demoEmail)} disabled={busy}>
              Use the demo owner
            </button>
          )}
        </div>
        {demoEmail && (
          <p className="muted small">
            The demo tenant opens with <strong>{demoEmail}</strong>; any other email starts a new team.
          </p>
        )}
      </div>
    </main>
  );
}
