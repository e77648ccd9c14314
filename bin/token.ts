import { readFile } from 'node:fs/promises';
import { parseArgs } from 'node:util';
import { RUNTIME_FILE } from '../local/runtime-file.ts';

// `npm run token -- --sub alice --email alice@example.com`: an access token from the running
// local issuer (its keys are made when `npm start` starts). Where it runs: --url, else BASE_URL or
// PORT, else the address `npm start` wrote to .local-data/runtime.json, else port 3000.

const { values } = parseArgs({
  options: { sub: { type: 'string' }, email: { type: 'string' }, url: { type: 'string' } },
});

/** The running service's URL, as `npm start` recorded it, while its process is alive. */
async function recorded(): Promise<string | null> {
  try {
    const r = JSON.parse(await readFile(RUNTIME_FILE, 'utf8')) as { url?: string; pid?: number };
    if (typeof r.url !== 'string' || typeof r.pid !== 'number') return null;
    process.kill(r.pid, 0); // throws when that process is gone
    return r.url;
  } catch {
    return null;
  }
}

const url =
  values.url ??
  process.env.BASE_URL ??
  (process.env.PORT ? `http://127.0.0.1:${process.env.PORT}` : null) ??
  (await recorded()) ??
  'http://127.0.0.1:3000';
if (!values.sub) {
  console.error('usage: npm run token -- --sub <user id> [--email <email>] [--url http://127.0.0.1:3000]');
  process.exit(2);
}
const res = await fetch(`${url}/local-idp/token`, {
  method: 'POST',
  headers: { 'content-type': 'application/json' },
  body: JSON.stringify({ sub: values.sub, ...(values.email ? { email: values.email } : {}) }),
}).catch(() => null);
if (!res?.ok) {
  console.error(
    `No local issuer answered at ${url}. Start the service with npm start first; if it runs on another port, ` +
      'run this in the same checkout (npm start records its address), or pass it: npm run token -- --url http://127.0.0.1:<port> --sub ...',
  );
  process.exit(1);
}
console.log(((await res.json()) as { accessToken: string }).accessToken);
