import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { dashboardHandler } from '../../local/dashboard.ts';

// How the local runtime serves the built dashboard: files with their types, the app for
// client-side routes, /config.json, and nothing outside the build or under the API's paths.

let dir: string;
let server: Server;
let base: string;
const config = {
  issuer: 'http://127.0.0.1:1/local-idp',
  clientId: 'local-dashboard',
  apiUrl: 'http://127.0.0.1:1',
  liveUrl: 'ws://127.0.0.1:1/api/v1/live',
  widgetOrigin: 'http://127.0.0.1:1',
};

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'dashboard-'));
  await mkdir(join(dir, 'assets'));
  await writeFile(join(dir, 'index.html'), '<!doctype html><title>app</title>');
  await writeFile(join(dir, 'assets/app-123.js'), 'console.log(1)');
  await writeFile(join(dir, 'assets/app-123.css'), 'body{}');
  await writeFile(join(tmpdir(), 'outside.txt'), 'secret');
  const serve = dashboardHandler({ dir }, config);
  server = createServer((req, res) => {
    void serve(req.method ?? 'GET', new URL(req.url ?? '/', 'http://x'), res).then((done) => {
      if (!done) {
        res.writeHead(404);
        res.end('{"message":"Not Found"}');
      }
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  base = `http://127.0.0.1:${(server.address() as { port: number }).port}`;
});
afterAll(async () => {
  server.close();
  await rm(dir, { recursive: true, force: true });
});

describe('dashboard serving', () => {
  it('serves files with their content types; hashed assets are cached for good, the rest revalidated', async () => {
    const js = await fetch(`${base}/assets/app-123.js`);
    expect(js.headers.get('content-type')).toBe('text/javascript; charset=utf-8');
    expect(js.headers.get('cache-control')).toContain('immutable');
    expect((await fetch(`${base}/assets/app-123.css`)).headers.get('content-type')).toBe('text/css; charset=utf-8');
    const index = await fetch(`${base}/`);
    expect(index.headers.get('content-type')).toBe('text/html; charset=utf-8');
    expect(index.headers.get('cache-control')).toBe('no-cache');
    expect(index.headers.get('content-security-policy')).toContain("frame-ancestors 'none'");
    expect(index.headers.get('content-security-policy')).toContain('connect-src');
  });

  it('answers client-side routes with the app, and a missing file with 404', async () => {
    for (const path of ['/tickets/tkt_01ABC', '/inbox', '/callback?code=x&state=y']) {
      const r = await fetch(base + path);
      expect(r.status, path).toBe(200);
      expect(await r.text()).toContain('<title>app</title>');
    }
    expect((await fetch(`${base}/assets/missing.js`)).status).toBe(404);
  });

  it('serves /config.json with the runtime configuration, never cached', async () => {
    const r = await fetch(`${base}/config.json`);
    expect(r.headers.get('cache-control')).toBe('no-store');
    expect(await r.json()).toEqual(config);
  });

  it('leaves API and issuer paths, other methods and paths outside the build alone', async () => {
    expect((await fetch(`${base}/api/v1/admin/nope`)).status).toBe(404);
    expect((await fetch(`${base}/local-idp/nope`)).status).toBe(404);
    expect((await fetch(`${base}/`, { method: 'POST' })).status).toBe(404);
    for (const path of ['/..%2foutside.txt', '/assets/..%2f..%2foutside.txt', '/%2e%2e/outside.txt']) {
      const r = await fetch(base + path);
      expect(await r.text(), path).not.toBe('secret');
    }
  });
});
