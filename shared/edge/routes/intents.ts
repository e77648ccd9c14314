import * as z from 'zod/mini';
import { declareAdmin } from '../route.ts';
import { checkPattern, ENTITY_TYPES, MAX_PATTERN_LENGTH, MAX_PROMPT_LENGTH } from '#shared/nlu/index.ts';
import { INTENT_ACTIONS } from '#shared/core/vocabulary.ts';
import { EmptyQuery, IdParams, text } from '../schema.ts';

// Request and response schemas of /intents; the OpenAPI document is generated from them.

export const EntitySchema = z
  .strictObject({
    // Names are `{{placeholders}}` in responses, so they are identifiers.
    name: z
      .string()
      .check(
        z.regex(
          /^[A-Za-z_][A-Za-z0-9_]{0,63}$/,
          'must be 1 to 64 letters, digits or underscores, not starting with a digit',
        ),
      ),
    type: z.enum(ENTITY_TYPES, { message: `must be one of ${ENTITY_TYPES.join(', ')}` }),
    pattern: z.optional(
      z.string().check(z.maxLength(MAX_PATTERN_LENGTH, `must be at most ${MAX_PATTERN_LENGTH} characters`)),
    ),
    required: z.optional(z.boolean({ message: 'must be true or false' })),
    prompt: z.optional(text(1, MAX_PROMPT_LENGTH)),
  })
  .check(
    z.superRefine((e, ctx) => {
      if (e.prompt !== undefined && e.required !== true)
        ctx.addIssue({ code: 'custom', path: ['prompt'], message: 'is only allowed with required: true' });
      if (e.type !== 'regex') {
        if (e.pattern !== undefined)
          ctx.addIssue({ code: 'custom', path: ['pattern'], message: 'is only allowed with type regex' });
        return;
      }
      if (e.pattern === undefined) {
        ctx.addIssue({ code: 'custom', path: ['pattern'], message: 'is required with type regex' });
        return;
      }
      const why = checkPattern(e.pattern);
      if (why) ctx.addIssue({ code: 'custom', path: ['pattern'], message: why });
    }),
  );

export const IntentBody = z.strictObject({
  name: z
    .string()
    .check(
      z.regex(
        /^[a-z][a-z0-9_]{0,63}$/,
        'must be 1 to 64 lowercase letters, digits or underscores, starting with a letter',
      ),
    ),
  description: z._default(text(0, 500), ''),
  trainingPhrases: z
    .array(text(1, 500))
    .check(z.minLength(1, 'must have 1 to 200 phrases'), z.maxLength(200, 'must have 1 to 200 phrases')),
  response: text(1, 2000),
  entities: z._default(z.array(EntitySchema).check(z.maxLength(20, 'must have at most 20 entities')), []).check(
    z.superRefine((list, ctx) => {
      const seen = new Set<string>();
      list.forEach((e, i) => {
        if (seen.has(e.name)) ctx.addIssue({ code: 'custom', path: [i, 'name'], message: 'is used twice' });
        seen.add(e.name);
      });
    }),
  ),
  action: z._default(z.enum(INTENT_ACTIONS, { message: `must be ${INTENT_ACTIONS.join(' or ')}` }), 'reply'),
  integrationId: z.optional(
    z
      .string()
      .check(
        z.maxLength(100),
        z.describe(
          'with `action: "call"` (required then): the id of one of the tenant\'s `action` integrations; anything else is 400',
        ),
      ),
  ),
  failureResponse: z.optional(
    text(1, 2000).check(
      z.describe(
        'with `action: "call"`: what the customer reads when the action fails, times out or is skipped (default: a sentence that it cannot be looked up now, offering a person)',
      ),
    ),
  ),
  enabled: z._default(z.boolean({ message: 'must be true or false' }), true),
});

export const Intent = z.object({
  id: z.uuid(),
  name: z.string(),
  description: z.string(),
  trainingPhrases: z.array(z.string()),
  response: z.string(),
  entities: z.array(
    z.object({
      name: z.string(),
      type: z.enum(ENTITY_TYPES),
      pattern: z.optional(z.string()),
      required: z.optional(z.boolean()),
      prompt: z.optional(z.string()),
    }),
  ),
  action: z.enum(INTENT_ACTIONS),
  integrationId: z.optional(z.string()).check(z.describe('`action: "call"` only')),
  failureResponse: z.optional(z.string()).check(z.describe('`action: "call"` only, when set')),
  enabled: z.boolean(),
  hitCount: z.number().check(z.int()),
  starter: z
    .boolean()
    .check(
      z.describe(
        "starter content the team has not edited: where one of the team's published articles answers a message, it does not answer instead; an edit (anything but `enabled`) clears it",
      ),
    ),
  needsReview: z
    .boolean()
    .check(
      z.describe(
        'disabled once by the starter review because its starter reply stated facts the team never wrote; any write clears it',
      ),
    ),
  indexing: z
    .boolean()
    .check(
      z.describe(
        'true until the assistant has the sentence vectors of this version (answers meanwhile come from its words alone)',
      ),
    ),
  createdAt: z.iso.datetime(),
  updatedAt: z.iso.datetime(),
});
export const IntentList = z.object({ items: z.array(Intent) });

export const listIntents = declareAdmin('GET', '/intents', 'list-intents', 'viewer', {
  table: 'read',
  query: EmptyQuery,
  response: IntentList,
  status: 200,
  summary: 'Every intent of the tenant, with its hit count',
});

export const getIntent = declareAdmin('GET', '/intents/{id}', 'get-intent', 'viewer', {
  table: 'read',
  params: IdParams,
  status: 200,
  response: Intent,
  summary: 'An intent',
});

export const createIntent = declareAdmin('POST', '/intents', 'create-intent', 'admin', {
  table: 'write',
  body: IntentBody,
  status: 201,
  response: Intent,
  idempotent: true,
  conflicts: ['CONFLICT', 'IDEMPOTENCY_IN_PROGRESS'],
  summary: 'Create an intent',
  description:
    'A name already used in the tenant, or a 201st intent: 409 `CONFLICT`. A `{{placeholder}}` of `response` that names none of ' +
    'its entities: 400 on `response`. `action: "call"` needs `integrationId`, an `action` integration of the tenant (another ' +
    "tenant's, another type or an unknown id: 400); its `response` may use `{{data.path}}` placeholders filled from the action's " +
    'answer (docs/ACTIONS.md).',
});

export const updateIntent = declareAdmin('PUT', '/intents/{id}', 'update-intent', 'admin', {
  table: 'write',
  params: IdParams,
  body: IntentBody,
  status: 200,
  response: Intent,
  conflicts: ['CONFLICT'],
  summary: 'Replace an intent',
  description: 'A full replacement; the next chat message already uses it.',
});

export const deleteIntent = declareAdmin('DELETE', '/intents/{id}', 'delete-intent', 'admin', {
  table: 'write',
  params: IdParams,
  status: 204,
  summary: 'Delete an intent',
});

export const IntentTemplate = z.object({
  key: z.string(),
  title: z.string(),
  name: z.string(),
  description: z.string(),
  trainingPhrases: z.array(z.string()),
  response: z.string().check(z.describe("with blanks `[…]` for the team's own facts")),
  entities: Intent.shape.entities,
  action: z.enum(INTENT_ACTIONS),
});

export const listIntentTemplates = declareAdmin('GET', '/intent-templates', 'list-intent-templates', 'viewer', {
  table: 'read',
  query: EmptyQuery,
  response: z.object({ items: z.array(IntentTemplate) }),
  status: 200,
  summary: 'Common support topics to start an intent from',
  description:
    "Returns, shipping, payments, accounts, products, contact...: each reply has blanks `[…]` for the business's own facts. " +
    'They are offered, never enabled by themselves: the team fills the blanks and creates the intent with POST /intents.',
});

export const routes = [listIntents, getIntent, createIntent, updateIntent, deleteIntent, listIntentTemplates];
