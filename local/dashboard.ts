import { readFile, stat } from 'node:fs/promises';
import type { ServerResponse } from 'node:http';
import { extname, join, normalize, sep } from 'node:path';
import { fileURLToPath } from 'node:url';

// The dashboard in the local runtime: built with Vite into web/dashboard/dist (not committed) and
// served at `/` as the CDN serves it deployed: files as they are, index.html for client-side
// routes, and /config.json with this runtime's issuer and URLs.

export const DASHBOARD_ROOT = fileURLToPath(new URL('../web/dashboard/', import.meta.url));
export const DASHBOARD_DIST = join(DASHBOARD_ROOT, 'dist');

export interface DashboardOptions {
  /** The built files; defaults to web/dashboard/dist. */
  dir?: string;
  /** Where widget.js is served from, for the embed snippet; defaults to this runtime. */
  widgetOrigin?: string;
}

/** What the dashboard reads at start (web/dashboard/src/config.ts). */
export interface DashboardConfig {
  issuer: string;
  clientId: string;
  apiUrl: string;
  liveUrl: string | null;
  widgetOrigin: string;
  /** The email that opens the seeded demo tenant (`npm start`), when there is one. */
  demoEmail?: string;
}

/** Generates the API types from the OpenAPI document, then builds the dashboard with Vite into dist/. */
export async function buildDashboard(): Promise<void> {
  const { buildDashboard: build } = await import('../web/dashboard/scripts/build.ts');
  await build();
}

const TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.mjs': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.json': 'application/json',
  '.map': 'application/json',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.ico': 'image/x-icon',
  '.woff2': 'font/woff2',
  '.txt': 'text/plain; charset=utf-8',
  '.webmanifest': 'application/manifest+json',
};

const origin = (u: string) => new URL(u).origin;

/**
 * A request handler for the dashboard's paths: true when it answered. API and issuer paths are
 * never its own, so the gateway's 404 stays theirs.
 */
export function dashboardHandler(opts: DashboardOptions, config: DashboardConfig, imageOrigin?: string) {
  const dir = opts.dir ?? DASHBOARD_DIST;
  const connect = [
    ...new Set([
      "'self'",
      origin(config.issuer),
      origin(config.apiUrl),
      ...(config.liveUrl ? [origin(config.liveUrl.replace(/^ws/, 'http')).replace(/^http/, 'ws')] : []),
    ]),
  ];
  const headers = {
    'x-content-type-options': 'nosniff',
    'referrer-policy': 'no-referrer',
    'content-security-policy': `default-src 'self'; connect-src ${connect.join(' ')}; img-src 'self' data:${imageOrigin ? ` ${imageOrigin}` : ''}; style-src 'self' 'unsafe-inline'; frame-ancestors 'none'; base-uri 'self'; form-action 'self'`,
  };
  const body = JSON.stringify(config);

  return async (method: string, url: URL, res: ServerResponse): Promise<boolean> => {
    if (method !== 'GET' && method !== 'HEAD') return false;
    const path = url.pathname;
    if (path.startsWith('/api/') || path.startsWith('/local-idp/')) return false;
    const reply = (status: number, type: string, data: Buffer | string, cache: string) => {
      res.writeHead(status, {
        ...headers,
        'content-type': type,
        'cache-control': cache,
        'content-length': Buffer.byteLength(data),
      });
      res.end(method === 'HEAD' ? undefined : data);
      return true;
    };
    if (path === '/config.json') return reply(200, 'application/json', body, 'no-store');

    let decoded: string;
    try {
      decoded = decodeURIComponent(path);
    } catch {
      return false;
    }
    const file = normalize(join(dir, decoded));
    if (file.startsWith(dir + sep) && (await stat(file).catch(() => null))?.isFile()) {
      // Hashed file names under assets/ never change; everything else is checked on each load.
      const cache = path.startsWith('/assets/') ? 'public, max-age=31536000, immutable' : 'no-cache';
      return reply(200, TYPES[extname(file)] ?? 'application/octet-stream', await readFile(file), cache);
    }
    // A client-side route (no file extension) gets the app; a missing file stays a 404.
    if (extname(path) === '') {
      const index = await readFile(join(dir, 'index.html')).catch(() => null);
      if (index) return reply(200, TYPES['.html']!, index, 'no-cache');
    }
    return false;
  };
}
