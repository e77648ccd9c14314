import * as z from 'zod/mini';
import { declareAdmin } from '../route.ts';
import { EXAMPLE_TARGETS } from '#shared/core/vocabulary.ts';
import { pageQuery, text, uuid } from '../schema.ts';
import { IntentRankingEntry, Source } from './chat.ts';
import { Fraction, Page, Timestamp } from './common.ts';
import { Day } from './stats.ts';

// Trying the assistant from the dashboard: what the next chat message would get, stored nowhere.
export const ParseBody = z.strictObject({ message: text(1, 2000) });
export const ParseResponse = z.object({
  intentDetected: z.string(),
  confidence: Fraction,
  entitiesExtracted: z.record(z.string(), z.string()),
  intentRanking: z.array(IntentRankingEntry).check(z.maxLength(3)),
  reply: z
    .string()
    .check(z.describe("what the assistant would answer (an escalating intent's reply lacks the ticket number)")),
  sources: z
    .array(Source)
    .check(z.maxLength(3), z.describe('the help articles of a `knowledge_base` answer, best first; else []')),
  candidates: z
    .object({
      intents: z.array(z.object({ id: z.string(), name: z.string(), confidence: Fraction })),
      articles: z
        .array(z.object({ articleId: z.string(), title: z.string(), confidence: Fraction }))
        .check(z.maxLength(10)),
    })
    .check(
      z.describe(
        "what could answer the message, in the assistant's own order with the calibrated confidence it weighs: every " +
          'enabled intent, and the 10 best published articles that match at all (what "Should have been…" offers first)',
      ),
    ),
});

export const parse = declareAdmin('POST', '/nlu/parse', 'nlu-parse', 'viewer', {
  table: 'read',
  body: ParseBody,
  response: ParseResponse,
  status: 200,
  encoder: true,
  summary: 'Classify a message as the next chat message would be',
  description: 'Stores nothing and counts nothing.',
});

// Teaching the assistant from real conversations, and what it did not answer well.
const Target = z.union(
  [
    z.strictObject({ intentId: uuid() }),
    // Article ids are opaque: an unknown one is 404.
    z.strictObject({ articleId: z.string().check(z.minLength(1), z.maxLength(100)) }),
    z.strictObject({ none: z.literal(true, { message: 'must be true' }) }),
  ],
  { message: 'must be one of {"intentId": "..."}, {"articleId": "..."} or {"none": true}' },
);

export const ExampleBody = z.strictObject({
  message: text(1, 2000),
  target: Target,
  conversationId: z.optional(uuid().check(z.describe('the conversation the message comes from (404 if unknown)'))),
  messageId: z.optional(uuid().check(z.describe("the customer's message in that conversation"))),
});
export const Example = z.object({
  id: z.string(),
  message: z.string(),
  target: Target,
  conversationId: z.nullable(z.string()),
  messageId: z.nullable(z.string()),
  createdBy: z
    .object({ type: z.literal('user'), id: z.string() })
    .check(z.describe("the member who taught it (the token's sub)")),
  createdAt: Timestamp,
});
export const ExampleParams = z.strictObject({ id: z.string() });
export const ListExamplesQuery = z.strictObject({ target: z.optional(z.enum(EXAMPLE_TARGETS)), ...pageQuery });

const GROUPS = 'must be a whole number from 1 to 50';
export const UnansweredQuery = z.strictObject({
  from: z.optional(Day),
  to: z.optional(Day),
  limit: z._default(
    z.pipe(
      z.pipe(z.string().check(z.regex(/^[0-9]{1,2}$/, GROUPS)), z.transform(Number)),
      z.number().check(z.int(), z.gte(1, GROUPS), z.lte(50, GROUPS)),
    ),
    20,
  ),
});
export const Unanswered = z.object({
  period: z.object({ from: Day, to: Day }),
  groups: z
    .array(
      z.object({
        label: z.string().check(z.describe('the message that best stands for the group')),
        count: z.number().check(z.int(), z.describe('messages of the period in the group')),
        examples: z
          .array(
            z.object({
              message: z.string(),
              confidence: Fraction,
              conversationId: z.string(),
              messageId: z.string(),
              createdAt: Timestamp,
            }),
          )
          .check(z.maxLength(5), z.describe('newest first')),
        suggestion: z
          .nullable(z.union([z.object({ intentId: z.string() }), z.object({ articleId: z.string() })]))
          .check(z.describe("an existing intent or article that probably fits, from the tenant's current model")),
      }),
    )
    .check(z.describe('biggest group first')),
});

export const createExample = declareAdmin('POST', '/nlu/examples', 'create-example', 'admin', {
  table: 'write',
  body: ExampleBody,
  response: Example,
  status: 201,
  idempotent: true,
  conflicts: ['CONFLICT', 'IDEMPOTENCY_IN_PROGRESS'],
  alternate: {
    status: 200,
    description:
      'The same message (case and spacing aside) was taught to this target already: that example, nothing taught again (the message still leaves the unanswered list)',
  },
  summary: 'Teach the assistant what should have answered a message',
  description:
    "An intent's example adds the message to its `trainingPhrases`, an article's to its `questions`; `none` records a " +
    'message nothing should answer (at most 1,000). A full target (200 phrases, 20 questions, 1,000 none examples): 400 on ' +
    "`target`; a message longer than the target's field (500 characters for a phrase, 300 for a question): 400 on `message`. " +
    'A taught message (with its `conversationId` and `messageId`) leaves `GET /nlu/unanswered`. An unknown intent, article or conversation: 404. The next chat message already uses it. Audited (category `nlu`).',
});

export const listExamples = declareAdmin('GET', '/nlu/examples', 'list-examples', 'viewer', {
  table: 'read',
  query: ListExamplesQuery,
  response: Page(Example),
  status: 200,
  summary: 'Taught examples, newest first',
});

export const deleteExample = declareAdmin('DELETE', '/nlu/examples/{id}', 'delete-example', 'admin', {
  table: 'write',
  params: ExampleParams,
  status: 204,
  conflicts: ['CONFLICT'],
  summary: 'Take an example back',
  description:
    "The training phrase or question it added leaves its target (unless the target had it before, or it is an intent's last phrase).",
});

export const listUnanswered = declareAdmin('GET', '/nlu/unanswered', 'list-unanswered', 'viewer', {
  table: 'read',
  query: UnansweredQuery,
  response: Unanswered,
  status: 200,
  summary: 'What the assistant did not answer well, grouped by what it asks',
  description:
    "Customers' messages of the period (`from`, `to`: UTC days, default the last 30, at most 366) that got the fallback, an " +
    'answer under 0.5 confidence, or belong to a conversation rated 1 or 2; grouped by the words they share, biggest group ' +
    'first. Reads the newest 2,000 such messages of the period at most, kept as messages are answered (not a scan).',
});

export const routes = [parse, createExample, listExamples, deleteExample, listUnanswered];
