import { streamHandler } from '#shared/edge/stream.ts';
import { eventDispatcher } from '#shared/edge/triggers.ts';
import { dispatchEvents } from '#shared/domain/events-out/dispatch.ts';

export const handler = streamHandler(dispatchEvents, eventDispatcher.marginSeconds * 1000);
