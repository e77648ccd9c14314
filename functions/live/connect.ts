import { socketRoute } from '#shared/edge/socket.ts';
import { connectLive } from '#shared/domain/handoff/live.ts';

export const handler = socketRoute(async ({ connectionId, query, origin }) => connectLive(connectionId, query, origin));
