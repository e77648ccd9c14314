import * as z from 'zod/mini';
import { text, uuid } from '../schema.ts';

// Request schemas of the chat routes; the handlers validate with them and the OpenAPI document is generated from them.
export const SendMessageBody = z.strictObject({ conversationId: z.optional(uuid()), message: text(1, 2000) });
export const EscalateBody = z.strictObject({ conversationId: uuid(), reason: text(1, 500) });
