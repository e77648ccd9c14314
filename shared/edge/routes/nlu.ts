import * as z from 'zod/mini';
import { declareAdmin } from '../route.ts';
import { text } from '../schema.ts';
import { IntentRankingEntry, Source } from './chat.ts';
import { Fraction } from './common.ts';

// Trying the assistant from the dashboard: what the next chat message would get, stored nowhere.
export const ParseBody = z.strictObject({ message: text(1, 2000) });
export const ParseResponse = z.object({
  intentDetected: z.string(), confidence: Fraction, entitiesExtracted: z.record(z.string(), z.string()),
  intentRanking: z.array(IntentRankingEntry).check(z.maxLength(3)),
  reply: z.string().check(z.describe('what the assistant would answer (an escalating intent\'s reply lacks the ticket number)')),
  sources: z.array(Source).check(z.maxLength(3), z.describe('the help articles of a `knowledge_base` answer, best first; else []')),
});

export const parse = declareAdmin('POST', '/nlu/parse', 'nlu-parse', 'viewer', {
  table: 'read', body: ParseBody, response: ParseResponse, status: 200,
  summary: 'Classify a message as the next chat message would be',
  description: 'Stores nothing and counts nothing.',
});

export const routes = [parse];
