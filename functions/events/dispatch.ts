import { streamHandler } from '#shared/http/stream.ts';
import { dispatchEvents } from '#shared/domain/dispatch.ts';

export const handler = streamHandler(dispatchEvents);
