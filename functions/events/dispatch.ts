import { streamHandler } from '#shared/edge/stream.ts';
import { dispatchEvents } from '#shared/domain/events-out/dispatch.ts';

export const handler = streamHandler(dispatchEvents);
