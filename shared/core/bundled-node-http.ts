import { createRequire } from 'node:module';

// Function bundles replace `node:http` with this module (infra/bundling.ts). An ES import of
// `node:http` builds its namespace by reading every export, and Node.js 24's has getters
// (WebSocket, EventSource, …) that load undici when read: about 55 ms of every cold start, though
// no function uses them. Loaded through require, the module is read only where it is used.
// Local runs are unbundled and import it as usual.
const http = createRequire(import.meta.url)('node:http') as typeof import('node:http');

export default http;
export const {
  Agent,
  ClientRequest,
  IncomingMessage,
  METHODS,
  OutgoingMessage,
  STATUS_CODES,
  Server,
  ServerResponse,
  createServer,
  get,
  globalAgent,
  maxHeaderSize,
  request,
  setMaxIdleHTTPParsers,
  validateHeaderName,
  validateHeaderValue,
} = http;
