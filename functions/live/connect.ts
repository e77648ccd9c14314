import { socketRoute } from '#shared/http/socket.ts';
import { connectLive } from '#shared/domain/live.ts';

export const handler = socketRoute(async ({ connectionId, query, origin }) => connectLive(connectionId, query, origin));
