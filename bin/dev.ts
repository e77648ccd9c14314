import { parseArgs } from 'node:util';
import { buildDashboard } from '../local/dashboard.ts';
import { randomBytes } from 'node:crypto';
import { connectDemoOrders, seedDemoContent } from '../local/demo/seed.ts';
import { ORDER_STATUS_PATH } from '../local/demo/orders.ts';
import { DEMO_OWNER_EMAIL, subForEmail } from '../local/idp.ts';
import { startLocalRuntime } from '../local/runtime.ts';
import { startDemoHost } from '../local/web.ts';
import { forgetRuntime, recordRuntime } from '../local/runtime-file.ts';

// `npm start`: the whole service on this machine.
// Options: --port N (or env PORT, default 3000; the demo shop takes N+1, the stand-ins for S3, SQS and the caught mail N+2), --persist (keep data in .local-data/ between runs),
// --allow-loopback-webhooks (or env ALLOW_LOOPBACK_WEBHOOKS=1: webhooks may call http://127.0.0.1 receivers),
// --no-dashboard (skip building and serving the dashboard).

const { values } = parseArgs({
  options: {
    port: { type: 'string' },
    persist: { type: 'boolean', default: false },
    'allow-loopback-webhooks': { type: 'boolean', default: false },
    'no-dashboard': { type: 'boolean', default: false },
  },
});
const withDashboard = !values['no-dashboard'];
if (withDashboard) await buildDashboard();
const port = Number(values.port ?? process.env.PORT ?? 3000);
// The demo shop (next port) serves the order endpoint that the demo's order_status calls: the one
// loopback origin that actions may reach without --allow-loopback-webhooks.
const shopOrigin = `http://127.0.0.1:${port + 1}`;
const runtime = await startLocalRuntime({
  port,
  ...(values.persist ? { dataDir: '.local-data' } : {}),
  allowLoopbackWebhooks: values['allow-loopback-webhooks'],
  loopbackOrigins: [shopOrigin],
  ...(withDashboard ? { dashboard: {} } : {}),
  demoEmail: DEMO_OWNER_EMAIL,
  ...(process.env.SMTP_PORT ? { smtpPort: Number(process.env.SMTP_PORT) } : {}),
  trustVerdictHeader: true,
  standInsPort: port + 2,
  // Each tenant's chat on a thread of its own, as Lambda keeps tenants' invocations apart (local/lanes.ts).
  lanes: true,
});

const call = async (method: string, path: string, token: string, body?: unknown) => {
  const res = await fetch(runtime.url + path, {
    method,
    headers: { authorization: `Bearer ${token}`, ...(body ? { 'content-type': 'application/json' } : {}) },
    ...(body ? { body: JSON.stringify(body) } : {}),
  });
  return { status: res.status, body: (await res.json().catch(() => null)) as Record<string, unknown> | null };
};

// The demo tenant goes through the real onboarding route; with --persist it exists already, so
// its widget key (stored only as a hash) is rotated to show a usable one.
// The demo owner is the user that the dashboard's local sign-in makes of owner@demo.example.
const ownerToken = await runtime.idp.token({ sub: subForEmail(DEMO_OWNER_EMAIL), email: DEMO_OWNER_EMAIL });
let onboard = await call('POST', '/api/v1/admin/auth/onboard', ownerToken, { tenantName: 'Demo Shop' });
const fresh = onboard.status === 201;
if (onboard.status === 409) onboard = await call('POST', '/api/v1/admin/settings/widget-key', ownerToken);
const widgetKey = onboard.body?.widgetKey as string | undefined;
if (!widgetKey) throw new Error(`could not seed the demo tenant: ${onboard.status} ${JSON.stringify(onboard.body)}`);
// Its help centre and saved replies, through the routes (once: with --persist they are there
// already, and the key's rotation, which answers 201 too, is no new tenant).
if (fresh) await seedDemoContent(runtime.url, ownerToken);

// A new signing secret each run: the shop holds it in memory, the action's copy is replaced.
const orderSecret = `whsec_${randomBytes(32).toString('base64')}`;
await connectDemoOrders(runtime.url, ownerToken, `${shopOrigin}${ORDER_STATUS_PATH}`, orderSecret);
const demo = await startDemoHost({ apiUrl: runtime.url, widgetKey, port: port + 1, orderSecret });
await recordRuntime(runtime.url);

console.log(`
Support assistant running at ${runtime.url}
  Dashboard     ${withDashboard ? `${runtime.url}/  (sign in as ${DEMO_OWNER_EMAIL} for the demo tenant; any other email starts a new team)` : 'not built (--no-dashboard)'}
  Chat API      ${runtime.url}/api/v1/chat      (header X-Widget-Key)
  Admin API     ${runtime.url}/api/v1/admin     (header Authorization: Bearer <token>)
  OpenAPI       ${runtime.url}/api/v1/openapi.json
  Live channel  ${runtime.liveUrl}  (?widgetKey=...&conversationId=..., or ?ticket=... from POST /api/v1/admin/live/tickets)
  Widget        ${runtime.url}/widget.js
  Demo shop     ${demo.url}/      (another origin, embedding the widget; ${ORDER_STATUS_PATH} answers the demo's order_status action)
  Local issuer  ${runtime.idp.issuer}  (POST ${runtime.idp.issuer}/token {"sub","email"})
  DynamoDB      ${runtime.dynamodbEndpoint}${values.persist ? ' (data kept in .local-data/)' : ' (in memory)'}
  Email in      smtp://127.0.0.1:${runtime.mail?.smtpPort}  (to the demo's address in GET /api/v1/admin/settings, config.email.inboundAddress)
  Mail out      ${runtime.mailUrl}  (what the service sent, caught; this address changes at every start)
  Stand-ins     ${runtime.standInsUrl}  (S3 at /local-s3, SQS at /local-sqs, live management at /local-live: SigV4-signed calls only, no CORS; their own origin)
  Webhooks      ${values['allow-loopback-webhooks'] ? 'http://127.0.0.1 receivers allowed' : 'https only (--allow-loopback-webhooks lets http://127.0.0.1 receivers through)'}

Demo tenant "Demo Shop"
  sign in as    ${DEMO_OWNER_EMAIL}  (the local sign-in page fills it in: "Use the demo owner")
  widget key    ${widgetKey}
  owner token   ${ownerToken}

Try:
  curl -s ${runtime.url}/api/v1/chat/message -H 'content-type: application/json' \\
    -H 'x-widget-key: ${widgetKey}' -d '{"message":"where is my order 12345?"}'   (looked up at the demo shop's order endpoint)
  curl -s ${runtime.url}/api/v1/chat/message -H 'content-type: application/json' \\
    -H 'x-widget-key: ${widgetKey}' -d '{"message":"do my reward points expire?"}'   (answered from a help article)
Ctrl-C stops the service and DynamoDB Local.
`);

let stopping = false;
const stop = async () => {
  if (stopping) return;
  stopping = true;
  await forgetRuntime();
  await demo.stop();
  await runtime.stop();
  process.exit(0);
};
process.on('SIGINT', stop);
process.on('SIGTERM', stop);
