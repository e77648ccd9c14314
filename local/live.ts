import { randomBytes } from 'node:crypto';
import { STATUS_CODES, type IncomingMessage, type ServerResponse } from 'node:http';
import type { Duplex } from 'node:stream';
import { WebSocketServer, type WebSocket } from 'ws';

// The live channel as API Gateway's WebSocket API runs it: an upgrade request becomes a `$connect`
// event whose handler decides, by its status code, whether the upgrade completes; a closed socket
// becomes a `$disconnect` event; the management API (`@connections`) posts frames to sockets,
// tells about them and closes them. The events and the management API keep AWS's shapes, so the
// handlers and `@aws-sdk/client-apigatewaymanagementapi` cannot tell this from the real thing.

/** `$connect`, `$disconnect`, or a message route (a frame's `action`). */
export type SocketRouteKey = string;

/** The request context of a WebSocket API's Lambda proxy event, as API Gateway sends it. */
export interface WebSocketRequestContext {
  routeKey: SocketRouteKey;
  eventType: 'CONNECT' | 'DISCONNECT' | 'MESSAGE';
  messageId?: string;
  extendedRequestId: string;
  requestTime: string;
  messageDirection: 'IN';
  stage: string;
  connectedAt: number;
  requestTimeEpoch: number;
  identity: { sourceIp: string; userAgent?: string };
  requestId: string;
  domainName: string;
  connectionId: string;
  apiId: string;
  disconnectStatusCode?: number;
  disconnectReason?: string;
}

export interface WebSocketEvent {
  headers: Record<string, string>;
  multiValueHeaders: Record<string, string[]>;
  queryStringParameters?: Record<string, string>;
  multiValueQueryStringParameters?: Record<string, string[]>;
  requestContext: WebSocketRequestContext;
  /** A client's frame (MESSAGE events). */
  body?: string;
  isBase64Encoded: false;
}

export interface SocketResult {
  statusCode?: number;
  body?: string;
  headers?: Record<string, string | number | boolean>;
}

export interface LiveGatewayOptions {
  /** The path of the upgrade requests (the stage's URL). */
  path: string;
  /** Path prefix of the management API (its endpoint's path, on the stand-ins' port, which checks the signature). */
  managementPath: string;
  idleSeconds: number;
  /** The message routes: a text frame whose JSON `action` names one invokes it (route selection `$request.body.action`). */
  messageRoutes?: readonly string[];
  /** Invokes the handler of a route; undefined when the route has no handler. */
  invoke: (routeKey: SocketRouteKey, event: WebSocketEvent) => Promise<SocketResult | undefined | null>;
  /** Headers every response carries (CORS), the refused upgrades' too. */
  responseHeaders: Record<string, string>;
}

export interface LiveGateway {
  upgrade(req: IncomingMessage, socket: Duplex, head: Buffer): void;
  /** Answers a management API request; false when the path is not the management API's. */
  manage(method: string, pathname: string, body: Buffer, res: ServerResponse): boolean;
  /** Open connections (ids). */
  connectionIds(): string[];
  close(): Promise<void>;
}

/** API Gateway's limit on a message posted to a connection. */
const POST_LIMIT = 128 * 1024;
const API_ID = 'local';
const STAGE = 'local';
const MONTHS = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];

/** Ids shaped like API Gateway's (base64 of a few random bytes, `=`-padded), free of `/` and `+` as theirs are. */
export function gatewayId(bytes = 11): string {
  for (;;) {
    const id = randomBytes(bytes).toString('base64');
    if (!/[+/]/.test(id)) return id;
  }
}

/** `09/Feb/2024:18:11:43 +0000`, the format of requestContext.requestTime. */
export function requestTime(ms: number): string {
  const d = new Date(ms);
  const p = (n: number) => String(n).padStart(2, '0');
  return `${p(d.getUTCDate())}/${MONTHS[d.getUTCMonth()]}/${d.getUTCFullYear()}:${p(d.getUTCHours())}:${p(d.getUTCMinutes())}:${p(d.getUTCSeconds())} +0000`;
}

/** Reasons API Gateway gives for the close codes that carry none. */
const closeReason = (code: number, reason: string) =>
  reason ||
  (code === 1005 ? 'Client-side close frame status not set' : code === 1006 ? 'Connection closed abnormally' : '');

interface Connection {
  id: string;
  socket: WebSocket;
  connectedAt: number;
  lastActiveAt: number;
  sourceIp: string;
  userAgent: string;
  host: string;
  idle?: NodeJS.Timeout;
  /** Set when this side closes it (idle, DeleteConnection, stop): the code and reason that $disconnect reports. */
  closedBy?: { code: number; reason: string };
}

export function createLiveGateway(opts: LiveGatewayOptions): LiveGateway {
  // Frames from clients keep the connection alive; one whose `action` is a message route invokes it
  // (no $default route is declared, so any other frame goes nowhere).
  const wss = new WebSocketServer({ noServer: true, maxPayload: POST_LIMIT, clientTracking: false });
  const connections = new Map<string, Connection>();
  const pending = new Set<Promise<void>>();
  let closing = false;

  const track = (p: Promise<void>) => {
    pending.add(p);
    void p.finally(() => pending.delete(p));
  };

  function context(
    routeKey: SocketRouteKey,
    c: Pick<Connection, 'id' | 'connectedAt' | 'sourceIp' | 'userAgent' | 'host'>,
  ): WebSocketRequestContext {
    const now = Date.now();
    const requestId = gatewayId(12);
    return {
      routeKey,
      eventType: routeKey === '$connect' ? 'CONNECT' : routeKey === '$disconnect' ? 'DISCONNECT' : 'MESSAGE',
      extendedRequestId: requestId,
      requestTime: requestTime(now),
      messageDirection: 'IN',
      stage: STAGE,
      connectedAt: c.connectedAt,
      requestTimeEpoch: now,
      identity: { sourceIp: c.sourceIp, ...(c.userAgent ? { userAgent: c.userAgent } : {}) },
      requestId,
      domainName: c.host,
      connectionId: c.id,
      apiId: API_ID,
    };
  }

  function connectEvent(
    req: IncomingMessage,
    url: URL,
    c: Omit<Connection, 'socket' | 'lastActiveAt'>,
  ): WebSocketEvent {
    // Header names keep the client's case, as API Gateway passes them on $connect.
    const headers: Record<string, string> = Object.create(null);
    const multiValueHeaders: Record<string, string[]> = Object.create(null);
    const add = (name: string, value: string) => {
      headers[name] = value;
      multiValueHeaders[name] = [...(multiValueHeaders[name] ?? []), value];
    };
    for (let i = 0; i < req.rawHeaders.length; i += 2) add(req.rawHeaders[i]!, req.rawHeaders[i + 1]!);
    const has = (name: string) => Object.keys(headers).some((h) => h.toLowerCase() === name.toLowerCase());
    if (!has('x-forwarded-for')) add('X-Forwarded-For', c.sourceIp);
    if (!has('x-forwarded-port')) add('X-Forwarded-Port', String(req.socket.localPort ?? ''));
    if (!has('x-forwarded-proto')) add('X-Forwarded-Proto', 'http');
    const query: Record<string, string> = Object.create(null);
    const multiQuery: Record<string, string[]> = Object.create(null);
    for (const [k, v] of url.searchParams) {
      query[k] = v;
      multiQuery[k] = [...(multiQuery[k] ?? []), v];
    }
    return {
      headers,
      multiValueHeaders,
      ...(Object.keys(query).length
        ? { queryStringParameters: query, multiValueQueryStringParameters: multiQuery }
        : {}),
      requestContext: context('$connect', c),
      isBase64Encoded: false,
    };
  }

  function disconnectEvent(c: Connection, code: number, reason: string): WebSocketEvent {
    const headers = { Host: c.host, 'X-Forwarded-For': c.sourceIp };
    return {
      headers,
      multiValueHeaders: { Host: [c.host], 'X-Forwarded-For': [c.sourceIp] },
      requestContext: {
        ...context('$disconnect', c),
        disconnectStatusCode: code,
        disconnectReason: closeReason(code, reason),
      },
      isBase64Encoded: false,
    };
  }

  function disconnected(c: Connection, code: number, reason: string) {
    connections.delete(c.id);
    clearTimeout(c.idle);
    const by = c.closedBy ?? { code, reason };
    track(
      opts.invoke('$disconnect', disconnectEvent(c, by.code, by.reason)).then(
        () => undefined,
        (err: unknown) => {
          console.error(`live $disconnect ${c.id} failed`, err);
        },
      ),
    );
  }

  function message(c: Connection, data: unknown, isBinary: boolean) {
    if (isBinary || closing) return;
    const body = String(data);
    let action: unknown;
    try {
      action = (JSON.parse(body) as { action?: unknown } | null)?.action;
    } catch {
      return;
    }
    if (typeof action !== 'string' || !opts.messageRoutes?.includes(action)) return;
    const event: WebSocketEvent = {
      headers: {},
      multiValueHeaders: {},
      requestContext: { ...context(action, c), messageId: gatewayId(8) },
      body,
      isBase64Encoded: false,
    };
    // As API Gateway with no route response: the function's result goes nowhere.
    track(
      opts.invoke(action, event).then(
        () => undefined,
        (err: unknown) => {
          console.error(`live ${action} ${c.id} failed`, err);
        },
      ),
    );
  }

  function touch(c: Connection) {
    c.lastActiveAt = Date.now();
    clearTimeout(c.idle);
    c.idle = setTimeout(() => closeConnection(c, 1001, 'Going away'), opts.idleSeconds * 1000);
    c.idle.unref();
  }

  function closeConnection(c: Connection, code: number, reason: string) {
    if (c.closedBy) return;
    c.closedBy = { code, reason };
    connections.delete(c.id);
    clearTimeout(c.idle);
    c.socket.close(code, reason);
  }

  function refuse(socket: Duplex, status: number, body: string, headers: Record<string, string> = {}) {
    const all: Record<string, string> = { ...opts.responseHeaders, 'content-type': 'application/json', ...headers };
    const lines = Object.entries(all)
      .filter(([k]) => !/^(content-length|connection|transfer-encoding)$/i.test(k))
      .map(([k, v]) => `${k}: ${v}\r\n`)
      .join('');
    socket.end(
      `HTTP/1.1 ${status} ${STATUS_CODES[status] ?? ''}\r\n${lines}content-length: ${Buffer.byteLength(body)}\r\nconnection: close\r\n\r\n${body}`,
    );
  }

  async function upgrade(req: IncomingMessage, socket: Duplex, head: Buffer) {
    socket.on('error', () => socket.destroy());
    const url = new URL(req.url ?? '/', 'http://127.0.0.1');
    if (closing || url.pathname !== opts.path) return refuse(socket, 404, '{"message":"Not Found"}');
    // A handshake that ws would refuse never reaches $connect.
    const key = req.headers['sec-websocket-key'];
    if (
      req.method !== 'GET' ||
      req.headers.upgrade?.toLowerCase() !== 'websocket' ||
      typeof key !== 'string' ||
      !/^[+/0-9A-Za-z]{22}==$/.test(key) ||
      !['8', '13'].includes(req.headers['sec-websocket-version'] ?? '')
    ) {
      return refuse(socket, 400, '{"message":"Bad Request"}');
    }
    let gone = false;
    socket.once('close', () => {
      gone = true;
    });
    const base = {
      id: gatewayId(),
      connectedAt: Date.now(),
      sourceIp: req.socket.remoteAddress ?? '127.0.0.1',
      userAgent: req.headers['user-agent'] ?? '',
      host: req.headers.host ?? '127.0.0.1',
    };
    let result: SocketResult | undefined | null;
    try {
      result = await opts.invoke('$connect', connectEvent(req, url, base));
    } catch (err) {
      console.error(`live $connect ${base.id} failed`, err);
      return refuse(socket, 500, '{"message": "Internal server error"}');
    }
    const status = result?.statusCode ?? 200;
    if (status < 200 || status > 299) {
      const headers: Record<string, string> = {};
      for (const [k, v] of Object.entries(result?.headers ?? {})) headers[k] = String(v);
      return refuse(socket, status, result?.body ?? '', headers);
    }
    const c: Connection = { ...base, socket: undefined as unknown as WebSocket, lastActiveAt: Date.now() };
    // The client left while $connect ran: the connection existed for the handler, so it hears of its end.
    if (gone || closing) {
      socket.destroy();
      return disconnected({ ...c, closedBy: { code: 1006, reason: '' } }, 1006, '');
    }
    wss.handleUpgrade(req, socket, head, (ws) => {
      c.socket = ws;
      connections.set(c.id, c);
      touch(c);
      ws.on('message', (data, isBinary) => {
        touch(c);
        message(c, data, isBinary);
      });
      ws.on('ping', () => touch(c));
      ws.on('error', () => ws.terminate());
      ws.once('close', (code, reason) => disconnected(c, code, reason.toString('utf8')));
    });
  }

  function manage(method: string, pathname: string, body: Buffer, res: ServerResponse): boolean {
    const prefix = `${opts.managementPath}/@connections/`;
    if (!pathname.startsWith(prefix)) return false;
    const reply = (status: number, payload?: unknown, headers: Record<string, string> = {}) => {
      const text = payload === undefined ? '' : JSON.stringify(payload);
      res.writeHead(status, {
        'x-amzn-requestid': gatewayId(12),
        ...(text ? { 'content-type': 'application/json' } : {}),
        ...headers,
      });
      res.end(text || undefined);
    };
    let id: string;
    try {
      id = decodeURIComponent(pathname.slice(prefix.length));
    } catch {
      reply(400, { message: 'Invalid connection id' }, { 'x-amzn-errortype': 'BadRequestException' });
      return true;
    }
    if (!['POST', 'GET', 'DELETE'].includes(method)) {
      reply(404, { message: 'Not Found' });
      return true;
    }
    const c = connections.get(id);
    if (!c || c.closedBy || c.socket.readyState !== c.socket.OPEN) {
      reply(410, { message: null }, { 'x-amzn-errortype': 'GoneException' });
      return true;
    }
    if (method === 'POST') {
      if (body.length > POST_LIMIT) {
        reply(413, { message: 'Message too long' }, { 'x-amzn-errortype': 'PayloadTooLargeException' });
        return true;
      }
      c.socket.send(body, { binary: false });
      touch(c);
      reply(200);
    } else if (method === 'GET') {
      reply(200, {
        connectedAt: new Date(c.connectedAt).toISOString(),
        identity: { sourceIp: c.sourceIp, userAgent: c.userAgent },
        lastActiveAt: new Date(c.lastActiveAt).toISOString(),
      });
    } else {
      closeConnection(c, 1000, '');
      reply(204);
    }
    return true;
  }

  return {
    upgrade: (req, socket, head) => {
      upgrade(req, socket, head).catch((err: unknown) => {
        console.error('live upgrade failed', err);
        socket.destroy();
      });
    },
    manage,
    connectionIds: () => [...connections.keys()],
    async close() {
      closing = true;
      const open = [...connections.values()];
      const closed = open.map(
        (c) =>
          new Promise<void>((resolve) => {
            c.socket.once('close', () => resolve());
            closeConnection(c, 1001, 'Going away');
          }),
      );
      // A client that does not answer the close frame within a second is cut off.
      const cutoff = setTimeout(() => {
        for (const c of open) c.socket.terminate();
      }, 1000);
      await Promise.all(closed);
      clearTimeout(cutoff);
      await Promise.all([...pending]);
      wss.close();
    },
  };
}
