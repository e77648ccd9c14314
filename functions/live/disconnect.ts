import { socketRoute } from '#shared/edge/socket.ts';
import { disconnectLive } from '#shared/domain/handoff/live.ts';

export const handler = socketRoute(async ({ connectionId }) => disconnectLive(connectionId));
