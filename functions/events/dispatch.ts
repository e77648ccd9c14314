import { streamHandler } from '#shared/http/stream.ts';
import { pushLive } from '#shared/domain/live.ts';

export const handler = streamHandler(pushLive);
