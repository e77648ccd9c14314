// The runtime configuration, read at start from /config.json next to index.html: the local
// runtime serves it, a deployment writes it. Nothing environment-specific is built in.
export interface DashboardConfig {
  /** The OpenID issuer (the local issuer, or the Cognito user pool). */
  issuer: string;
  clientId: string;
  /** Origin of the API; paths start with /api/v1. */
  apiUrl: string;
  /** The live channel's WebSocket URL, or null where it is not offered. */
  liveUrl: string | null;
  /** Where widget.js is served from, for the embed snippet. */
  widgetOrigin: string;
  /** OAuth scopes to ask for. */
  scope?: string;
  /** A sign-out URL for issuers whose discovery lists no end_session_endpoint (Cognito). */
  logoutUrl?: string;
  /** Locally (`npm start`): the email that opens the seeded demo tenant. */
  demoEmail?: string;
}

export async function loadConfig(): Promise<DashboardConfig> {
  const res = await fetch('/config.json', { cache: 'no-store' });
  if (!res.ok) throw new Error(`/config.json answered ${res.status}`);
  const c = (await res.json()) as Partial<DashboardConfig>;
  for (const key of ['issuer', 'clientId', 'apiUrl', 'widgetOrigin'] as const) {
    if (typeof c[key] !== 'string' || !c[key]) throw new Error(`/config.json has no ${key}`);
  }
  return { liveUrl: null, ...c } as DashboardConfig;
}
