import { randomBytes } from 'node:crypto';
import { DEMO_OWNER_EMAIL, subForEmail } from '../../local/idp.ts';
import { startLocalRuntime } from '../../local/runtime.ts';
import { startDemoHost } from '../../local/web.ts';
import { untilIntentsIndexed } from '../fixtures/indexed.ts';

// The e2e tests' service (the API with the built dashboard at `/`, and the widget's demo shop on
// another origin), in a process of its own: the local runtime sets process-wide
// configuration (table, endpoints, LIVE_URL) that the integration project's runtime, started in
// vitest's main process at the same time, must not share. Prints one JSON line when ready; stops
// when its parent closes stdin or sends SIGTERM.

process.env.POWERTOOLS_LOG_LEVEL ??= 'ERROR';
// As `npm start`: a test's X-Local-Verdicts header stands in for SES's SPF, DKIM and DMARC checks.
const runtime = await startLocalRuntime({
  tableName: 'support-assistant-e2e',
  dashboard: {},
  demoEmail: DEMO_OWNER_EMAIL,
  trustVerdictHeader: true,
  // As `npm start`: each tenant's chat, and the stream's and queues' functions, on threads of their own.
  lanes: true,
});
// The demo owner is the user the sign-in page makes of the demo email, as with `npm start`.
const token = await runtime.idp.token({ sub: subForEmail(DEMO_OWNER_EMAIL), email: DEMO_OWNER_EMAIL });
const res = await fetch(`${runtime.url}/api/v1/admin/auth/onboard`, {
  method: 'POST',
  headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
  body: JSON.stringify({ tenantName: 'Demo Shop' }),
});
const { widgetKey } = (await res.json()) as { widgetKey: string };
// The first tenant's indexing (the encoder's load, the starter intents) happens before any test.
await untilIntentsIndexed(runtime.url, token);
// As `npm start`: the demo shop serves its order endpoint, the one loopback origin actions may call
// (set once the shop's port is known; the runtime reads it per call, in this process).
const orderSecret = `whsec_${randomBytes(32).toString('base64')}`;
const host = await startDemoHost({ apiUrl: runtime.url, widgetKey, orderSecret });
process.env.ALLOW_LOOPBACK_ORIGINS = host.url;
console.log(
  JSON.stringify({
    baseUrl: runtime.url,
    hostUrl: host.url,
    dynamodbEndpoint: runtime.dynamodbEndpoint,
    smtpPort: runtime.mail?.smtpPort ?? 0,
    orderSecret,
  }),
);

let stopping = false;
const stop = async () => {
  if (stopping) return;
  stopping = true;
  await host.stop();
  await runtime.stop();
  process.exit(0);
};
process.on('SIGTERM', stop);
process.on('SIGINT', stop);
process.stdin.on('end', stop);
process.stdin.resume();
