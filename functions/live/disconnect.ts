import { socketRoute } from '#shared/http/socket.ts';
import { disconnectLive } from '#shared/domain/live.ts';

export const handler = socketRoute(async ({ connectionId }) => disconnectLive(connectionId));
