import { socketRoute } from '#shared/edge/socket.ts';
import { relayTyping } from '#shared/domain/handoff/typing.ts';

export const handler = socketRoute(async ({ connectionId, body }) => relayTyping(connectionId, body));
