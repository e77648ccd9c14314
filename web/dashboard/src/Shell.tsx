import { lazy, Suspense, useEffect, useState, type ComponentType, type FormEvent } from 'react';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { matchPath, NavLink, Route, Routes, useLocation } from 'react-router';
import { ok } from './api/client.ts';
import { ApiError } from './api/problem.ts';
import type { Me } from './api/types.ts';
import { deletedTeamHint, MemberContext, useApp, useMember, type Member } from './context.tsx';
import { LiveProvider, LiveStatus } from './live.tsx';
import { atLeast, type Role } from './roles.ts';
import { defaultPeriod, statsQuery } from './screens/overview-query.ts';
import { EmbedSnippet, ErrorState, Field, FormError, Loading, Page, useFieldErrors } from './ui/index.tsx';

// Every screen is its own chunk, loaded when first visited (or, for the first screen, while the
// user's membership is read).
type Loader = () => Promise<{ default: ComponentType }>;
const screen = (load: Loader) => Object.assign(lazy(load), { load });
const screens = {
  overview: screen(() => import('./screens/Overview.tsx')),
  inbox: screen(() => import('./screens/Inbox.tsx')),
  tickets: screen(() => import('./screens/Tickets.tsx')),
  intents: screen(() => import('./screens/Intents.tsx')),
  knowledge: screen(() => import('./screens/Knowledge.tsx')),
  savedReplies: screen(() => import('./screens/SavedReplies.tsx')),
  unanswered: screen(() => import('./screens/Unanswered.tsx')),
  settings: screen(() => import('./screens/Settings.tsx')),
  members: screen(() => import('./screens/Members.tsx')),
  integrations: screen(() => import('./screens/Integrations.tsx')),
  audit: screen(() => import('./screens/Audit.tsx')),
  profile: screen(() => import('./screens/Profile.tsx')),
};

// conversations/:id is the link that Slack messages carry (shared/domain/events-out/slack.ts).
interface NavItem {
  to: string;
  label: string;
  min: Role;
  screen: ComponentType & { load: Loader };
  paths: string[];
}
const NAV: NavItem[] = [
  { to: '/', label: 'Overview', min: 'viewer', screen: screens.overview, paths: [''] },
  {
    to: '/inbox',
    label: 'Inbox',
    min: 'viewer',
    screen: screens.inbox,
    paths: ['inbox', 'inbox/:id', 'conversations/:id'],
  },
  { to: '/tickets', label: 'Tickets', min: 'viewer', screen: screens.tickets, paths: ['tickets', 'tickets/:id'] },
  { to: '/intents', label: 'Intents', min: 'viewer', screen: screens.intents, paths: ['intents', 'intents/:id'] },
  {
    to: '/knowledge',
    label: 'Knowledge',
    min: 'viewer',
    screen: screens.knowledge,
    paths: ['knowledge', 'knowledge/:id'],
  },
  {
    to: '/saved-replies',
    label: 'Saved replies',
    min: 'agent',
    screen: screens.savedReplies,
    paths: ['saved-replies'],
  },
  { to: '/unanswered', label: 'Unanswered', min: 'viewer', screen: screens.unanswered, paths: ['unanswered'] },
  { to: '/settings', label: 'Settings', min: 'admin', screen: screens.settings, paths: ['settings'] },
  { to: '/members', label: 'Members', min: 'admin', screen: screens.members, paths: ['members'] },
  {
    to: '/integrations',
    label: 'Integrations',
    min: 'admin',
    screen: screens.integrations,
    paths: ['integrations', 'integrations/:id'],
  },
  { to: '/audit', label: 'Audit', min: 'admin', screen: screens.audit, paths: ['audit'] },
];

// Whether this browser last saw the user as a member of a team: only then are tenant routes asked
// before GET /auth/me answers (a user without a team would get 403s for them).
const memberHint = (sub: string) => `support-dashboard:member:${sub}`;

/** Starts what the first screen needs alongside GET /auth/me instead of after it. */
function usePreload() {
  const { api, user } = useApp();
  const queryClient = useQueryClient();
  const { pathname } = useLocation();
  const sub = user.profile.sub;
  useEffect(() => {
    const item = NAV.find((n) => n.paths.some((p) => matchPath(`/${p}`, pathname)));
    void item?.screen.load();
    // Fresh data is not fetched again (staleTime), so later visits to / cost nothing here.
    if (item?.to === '/' && localStorage.getItem(memberHint(sub)))
      void queryClient.prefetchQuery(statsQuery(api, defaultPeriod()));
  }, [api, queryClient, pathname, sub]);
}

export function Shell() {
  const { api } = useApp();
  usePreload();
  const me = useQuery({ queryKey: ['me'], queryFn: (): Promise<Me> => ok(api.GET('/api/v1/admin/auth/me')) });
  if (me.isPending)
    return (
      <main className="center-page">
        <Loading label="Signing in…" />
      </main>
    );
  if (me.isError)
    return (
      <main className="center-page">
        <ErrorState error={me.error} retry={() => void me.refetch()} />
      </main>
    );
  const { user, tenant, role } = me.data;
  if (!tenant || !role) {
    localStorage.removeItem(memberHint(user.sub));
    return <Onboarding email={user.email} />;
  }
  // The team was made but its answer never came (a lost connection, a reload): the same request
  // again replays it (Idempotency-Key), so the one-time widget key is still shown.
  const unshown = onboardingShown.pending(user.sub);
  if (unshown !== null && role === 'owner') return <Onboarding email={user.email} replay={unshown} />;
  localStorage.setItem(memberHint(user.sub), '1');
  const member: Member = {
    sub: user.sub,
    email: user.email,
    role,
    tenant,
    displayName: me.data.displayName,
    displayNameChosen: me.data.displayNameChosen,
  };
  return (
    <MemberContext.Provider value={member}>
      <LiveProvider>
        <Layout />
      </LiveProvider>
    </MemberContext.Provider>
  );
}

function Layout() {
  const member = useMember();
  const { user, signOut } = useApp();
  return (
    <div className="layout">
      <a className="skip-link" href="#main">
        Skip to content
      </a>
      <header className="topbar">
        <span className="brand">{member.tenant.name}</span>
        <div className="topbar-right">
          <LiveStatus />
          <NavLink to="/profile" className="who">
            {/* Until a name is chosen, the email says who is signed in better than a default name. */}
            <span className="who-name">
              {member.displayNameChosen
                ? member.displayName
                : (member.email ?? user.profile.email ?? member.displayName)}
            </span>
            <span className="role">{member.role}</span>
          </NavLink>
          <button type="button" onClick={signOut}>
            Sign out
          </button>
        </div>
      </header>
      <nav className="sidebar" aria-label="Main">
        <ul>
          {NAV.filter((n) => atLeast(member.role, n.min)).map((n) => (
            <li key={n.to}>
              <NavLink to={n.to} end={n.to === '/'}>
                {n.label}
              </NavLink>
            </li>
          ))}
        </ul>
      </nav>
      <main id="main" className="content">
        <Suspense fallback={<Loading />}>
          <Routes>
            {NAV.flatMap((n) =>
              n.paths.map((p) => (
                <Route
                  key={p}
                  path={p === '' ? undefined : p}
                  index={p === ''}
                  element={atLeast(member.role, n.min) ? <n.screen /> : <NotAllowed />}
                />
              )),
            )}
            <Route path="profile" element={<screens.profile />} />
            <Route
              path="*"
              element={
                <Page title="Not found">
                  <p>There is no such page. Pick a screen from the menu.</p>
                </Page>
              }
            />
          </Routes>
        </Suspense>
      </main>
    </div>
  );
}

function NotAllowed() {
  return (
    <Page title="Not available">
      <p>Your role does not give access to this screen. An owner of your team can change your role.</p>
    </Page>
  );
}

/** A user in no tenant yet: creates one, then shows its widget key and embed snippet, once. */
/** An onboarding whose widget key was not shown yet, by user (sessionStorage: this tab, until shown). */
const onboardingShown = {
  key: (sub: string) => `support-dashboard:onboarding:${sub}`,
  pending(sub: string): string | null {
    try {
      return sessionStorage.getItem(this.key(sub));
    } catch {
      return null;
    }
  },
  start(sub: string, tenantName: string) {
    try {
      sessionStorage.setItem(this.key(sub), tenantName);
    } catch {
      /* this page only */
    }
  },
  done(sub: string) {
    try {
      sessionStorage.removeItem(this.key(sub));
    } catch {
      /* nothing kept */
    }
  },
};

function Onboarding({ email, replay }: { email: string | null; replay?: string }) {
  const { api, config, signOut, user } = useApp();
  const sub = user.profile.sub;
  const queryClient = useQueryClient();
  const [name, setName] = useState(replay ?? '');
  const onboard = useMutation({
    mutationFn: (tenantName: string) => ok(api.POST('/api/v1/admin/auth/onboard', { body: { tenantName } })),
    // A replay that cannot be answered any more (a day later): on to the team's dashboard.
    onError: () => {
      if (replay !== undefined) {
        onboardingShown.done(sub);
        void queryClient.resetQueries({ queryKey: ['me'] });
      }
    },
  });
  const submit = (e: FormEvent) => {
    e.preventDefault();
    onboardingShown.start(sub, name);
    onboard.mutate(name);
  };
  const { mutate } = onboard;
  useEffect(() => {
    if (replay !== undefined) mutate(replay);
  }, [replay, mutate]);
  // Read the membership afresh (reset, not only invalidated: the same answer must still re-render the shell).
  const proceed = () => {
    onboardingShown.done(sub);
    void queryClient.resetQueries({ queryKey: ['me'] });
  };
  const errors = useFieldErrors(onboard.error, { tenantName: 'Team or company name' });

  return (
    <main id="main" className="center-page">
      <div className="card onboarding">
        {onboard.data ? (
          <Page title="Your team is ready">
            <p>
              Add the assistant to your site with this tag. Your widget key is shown <strong>only now</strong>: keep it
              somewhere safe (an owner can rotate it later in Settings).
            </p>
            <p className="label">Widget key</p>
            <p>
              <code className="key">{onboard.data.widgetKey}</code>
            </p>
            <p className="label">Embed snippet</p>
            <EmbedSnippet widgetOrigin={config.widgetOrigin} widgetKey={onboard.data.widgetKey} />
            <button type="button" className="primary" onClick={proceed}>
              Continue to the dashboard
            </button>
          </Page>
        ) : (
          <Page title="Set up your team">
            <DeletionProgress sub={sub} />
            <p>
              You are signed in as {email ?? 'a user without an email'}, and you are not a member of a team yet: you are
              starting a new team of your own. If a colleague invited you, sign in with the email they invited instead.
            </p>
            {config.demoEmail && (
              <p className="notice" role="note">
                Looking for the demo tenant? Sign out, then sign in as <strong>{config.demoEmail}</strong> (the sign-in
                page has a button for it).
              </p>
            )}
            <form onSubmit={submit} noValidate>
              <Field label="Team or company name" {...errors.field('tenantName')}>
                {(p) => (
                  <input
                    {...p}
                    value={name}
                    onChange={(e) => setName(e.target.value)}
                    required
                    maxLength={100}
                    autoComplete="organization"
                  />
                )}
              </Field>
              {onboard.error instanceof ApiError && onboard.error.code === 'ALREADY_ONBOARDED' ? (
                <p className="notice" role="status">
                  You already belong to a team (made from another tab or window?): continue to its dashboard. An owner
                  can rotate the widget key in Settings if it was not kept.
                </p>
              ) : (
                <FormError error={onboard.error} fields={errors} />
              )}
              <div className="row">
                {onboard.error instanceof ApiError && onboard.error.code === 'ALREADY_ONBOARDED' ? (
                  <button type="button" className="primary" onClick={proceed}>
                    Continue to the dashboard
                  </button>
                ) : (
                  <button type="submit" className="primary" disabled={onboard.isPending}>
                    {onboard.isPending ? 'Creating…' : 'Create the team'}
                  </button>
                )}
                <button type="button" onClick={signOut}>
                  Sign out
                </button>
              </div>
            </form>
          </Page>
        )}
      </div>
    </main>
  );
}

/** Shown to the user who deleted a team, once unlinked: the purge's progress, read again every few seconds. */
function DeletionProgress({ sub }: { sub: string }) {
  const { api } = useApp();
  const status = useQuery({
    queryKey: ['tenant-deletion'],
    enabled: (() => {
      try {
        return localStorage.getItem(deletedTeamHint(sub)) !== null;
      } catch {
        return false;
      }
    })(),
    queryFn: async () => {
      const r = await api.GET('/api/v1/admin/tenant/deletion', {});
      return r.response.status === 404 ? null : ok(Promise.resolve(r));
    },
    refetchInterval: (q) => (q.state.data?.status === 'deleting' ? 5_000 : false),
  });
  const s = status.data;
  if (!s) return null;
  return (
    <p className="notice" role="status">
      {s.status === 'deleting'
        ? `${s.tenantName} is being deleted: ${s.deleted} items removed so far.`
        : `${s.tenantName} was deleted at ${new Date(s.finishedAt!).toLocaleString()}: ${s.deleted} items removed.`}
    </p>
  );
}
