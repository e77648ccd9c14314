import { parseArgs } from 'node:util';

// `npm run token -- --sub alice --email alice@example.com`: an access token from the running
// local issuer (its keys are made when `npm start` starts). --url if it runs elsewhere.

const { values } = parseArgs({
  options: {
    sub: { type: 'string' }, email: { type: 'string' },
    url: { type: 'string', default: process.env.BASE_URL ?? `http://127.0.0.1:${process.env.PORT ?? 3000}` },
  },
});
if (!values.sub) {
  console.error('usage: npm run token -- --sub <user id> [--email <email>] [--url http://127.0.0.1:3000]');
  process.exit(2);
}
const res = await fetch(`${values.url}/local-idp/token`, {
  method: 'POST', headers: { 'content-type': 'application/json' },
  body: JSON.stringify({ sub: values.sub, ...(values.email ? { email: values.email } : {}) }),
}).catch(() => null);
if (!res?.ok) {
  console.error(`no local issuer answered at ${values.url}; start the service with npm start first`);
  process.exit(1);
}
console.log(((await res.json()) as { accessToken: string }).accessToken);
