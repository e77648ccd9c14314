import * as z from 'zod/mini';
import { declareAdmin } from '../route.ts';
import { Timestamp } from './common.ts';

// The live channel's admission for members: a one-time ticket for the WebSocket URL.
export const LiveTicket = z.object({
  ticket: z.string().check(z.describe('pass as `?ticket=` when opening the live channel; one use')),
  expiresAt: Timestamp,
});

export const createLiveTicket = declareAdmin('POST', '/live/tickets', 'create-live-ticket', 'viewer', {
  table: 'write',
  response: LiveTicket,
  status: 201,
  summary: 'A one-time ticket for the live channel',
  description: 'Valid 60 seconds, for one connection that then receives every event of the tenant.',
});

export const routes = [createLiveTicket];
