import { createHash } from 'node:crypto';
import { readdirSync, statSync } from 'node:fs';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { buildWidget } from '../web/widget/build.ts';
import { answerOrderStatus, ORDER_STATUS_PATH } from './demo/orders.ts';

// The browser side of the local runtime: widget.js built from web/widget at start (and again when
// its sources change), and a demo shop page on a second port that embeds the widget from the API's
// origin: a real cross-origin host, as a customer's site is. CORS (preflights, and the headers on
// every response, widget.js's included) is http-api.ts's, as API Gateway's HTTP API answers it.

const WIDGET_SRC = fileURLToPath(new URL('../web/widget/src', import.meta.url));

const newestSource = () =>
  Math.max(...readdirSync(WIDGET_SRC, { recursive: true }).map((f) => statSync(join(WIDGET_SRC, String(f))).mtimeMs));

export interface WebAssets {
  /** Serves widget.js; returns false for anything else. */
  handle(req: IncomingMessage, res: ServerResponse, url: URL, method: string): boolean;
}

export function webAssets(): WebAssets {
  let built = { ...buildWidget(), at: newestSource(), etag: '' };
  built.etag = etagOf(built.code);
  const widget = () => {
    const at = newestSource();
    if (at > built.at) {
      try {
        built = { ...buildWidget(), at, etag: '' };
        built.etag = etagOf(built.code);
      } catch (e) {
        console.error('widget build failed:', e);
      }
    }
    return built;
  };

  return {
    handle(req, res, url, method) {
      if (url.pathname === '/widget.js' && (method === 'GET' || method === 'HEAD')) {
        const w = widget();
        const headers = {
          'content-type': 'text/javascript; charset=utf-8',
          // Short: a new release reaches pages within minutes; the ETag makes revalidation cheap.
          'cache-control': 'public, max-age=300',
          etag: w.etag,
          'x-content-type-options': 'nosniff',
          'cross-origin-resource-policy': 'cross-origin',
        };
        if (req.headers['if-none-match'] === w.etag) {
          res.writeHead(304, headers);
          res.end();
          return true;
        }
        res.writeHead(200, { ...headers, 'content-length': String(Buffer.byteLength(w.code)) });
        res.end(method === 'HEAD' ? undefined : w.code);
        return true;
      }
      return false;
    },
  };
}

const etagOf = (code: string) => `"${createHash('sha256').update(code).digest('base64url').slice(0, 22)}"`;

const escapeHtml = (s: string) => s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
const WIDGET_KEY = /^wk_[A-Za-z0-9_-]{20,100}$/;

export interface DemoHost {
  url: string;
  port: number;
  stop(): Promise<void>;
}

/**
 * The demo shop: a page of another origin that embeds the widget with one script tag, under a
 * strict Content-Security-Policy (scripts and connections to the API's origin only, no inline
 * script or style). `?widgetKey=wk_...` shows another tenant's widget.
 */
export async function startDemoHost(opts: {
  apiUrl: string;
  widgetKey: string;
  port?: number;
  host?: string;
  /** The signing secret of the demo tenant's order action: the shop then serves its order-status endpoint. */
  orderSecret?: string;
}): Promise<DemoHost> {
  const api = new URL(opts.apiUrl);
  const ws = `${api.protocol === 'https:' ? 'wss' : 'ws'}://${api.host}`;
  const csp = [
    "default-src 'self'",
    `script-src 'self' ${api.origin}`,
    `connect-src 'self' ${api.origin} ${ws}`,
    "style-src 'self'",
    "img-src 'self' data:",
    "base-uri 'none'",
    "form-action 'self'",
    "frame-ancestors 'none'",
    "object-src 'none'",
  ].join('; ');

  const server: Server = createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://localhost');
    if (url.pathname === ORDER_STATUS_PATH && opts.orderSecret) {
      if (req.method !== 'POST') {
        res.writeHead(405, { allow: 'POST' });
        res.end();
        return;
      }
      answerOrderStatus(req, res, opts.orderSecret).catch(() => {
        if (!res.headersSent) res.writeHead(500);
        res.end();
      });
      return;
    }
    if (req.method !== 'GET' && req.method !== 'HEAD') {
      res.writeHead(405, { allow: 'GET' });
      res.end();
      return;
    }
    if (url.pathname === '/shop.css') {
      res.writeHead(200, { 'content-type': 'text/css; charset=utf-8', 'cache-control': 'no-cache' });
      res.end(SHOP_CSS);
      return;
    }
    if (url.pathname !== '/') {
      res.writeHead(404, { 'content-type': 'text/plain' });
      res.end('Not found');
      return;
    }
    const asked = url.searchParams.get('widgetKey');
    const key = asked && WIDGET_KEY.test(asked) ? asked : opts.widgetKey;
    res.writeHead(200, {
      'content-type': 'text/html; charset=utf-8',
      'content-security-policy': csp,
      'cache-control': 'no-cache',
    });
    res.end(shopPage(`${api.origin}/widget.js`, key));
  });
  const host = opts.host ?? '127.0.0.1';
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(opts.port ?? 0, host, () => resolve());
  });
  const port = (server.address() as { port: number }).port;
  return {
    url: `http://${host}:${port}`,
    port,
    async stop() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

const shopPage = (src: string, widgetKey: string) => `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Demo Shop: coffee and tea</title>
<link rel="icon" href="data:image/svg+xml,%3Csvg xmlns=%22http://www.w3.org/2000/svg%22 viewBox=%220 0 16 16%22%3E%3Ccircle cx=%228%22 cy=%228%22 r=%228%22 fill=%22%237c2d12%22/%3E%3C/svg%3E">
<link rel="stylesheet" href="/shop.css">
</head>
<body>
<header>
  <a class="brand" href="/">Demo Shop</a>
  <nav aria-label="Shop"><a href="/">Coffee</a> <a href="/">Tea</a> <a href="/">Gifts</a></nav>
</header>
<main>
  <h1>Fresh coffee, delivered</h1>
  <p>This page stands in for a customer's website. The chat button in the corner is the support widget, loaded with one script tag from another origin.</p>
  <ul class="products">
    <li><h2>House blend</h2><p>Chocolate, hazelnut. 250 g.</p><p class="price">$9.50</p><button type="button">Add to basket</button></li>
    <li><h2>Ethiopia Guji</h2><p>Peach, jasmine. 250 g.</p><p class="price">$12.00</p><button type="button">Add to basket</button></li>
    <li><h2>Sencha</h2><p>Green tea, steamed. 100 g.</p><p class="price">$7.00</p><button type="button">Add to basket</button></li>
  </ul>
</main>
<footer><p>Demo Shop · 1 Example Street · Orders before 2 pm ship the same day</p></footer>
<script src="${escapeHtml(src)}" data-widget-key="${escapeHtml(widgetKey)}" async></script>
</body>
</html>
`;

const SHOP_CSS = `
body { margin: 0; font-family: Georgia, serif; color: #222; background: #faf7f2; }
header { display: flex; justify-content: space-between; align-items: center; padding: 16px 24px; background: #3b2f2f; }
header a { color: #fff; margin-left: 16px; }
.brand { font-size: 22px; font-weight: bold; margin: 0; text-decoration: none; }
main { max-width: 900px; margin: 0 auto; padding: 24px; }
.products { list-style: none; padding: 0; display: grid; grid-template-columns: repeat(auto-fill, minmax(220px, 1fr)); gap: 16px; }
.products li { background: #fff; border: 1px solid #e5ddd0; border-radius: 8px; padding: 16px; }
.products h2 { font-size: 20px; margin: 0 0 8px; }
.price { font-weight: bold; }
button { background: #3b2f2f; color: #fff; border: 0; border-radius: 4px; padding: 10px 14px; font: inherit; }
footer { text-align: center; padding: 24px; color: #555; }
`;
