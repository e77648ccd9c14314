import { ulid } from 'ulid';
import { fieldError, NotFound } from '#shared/core/errors.ts';
import type { Actor, ExampleTarget } from '#shared/core/vocabulary.ts';
import { auditRepo } from '#shared/data/audit.ts';
import { conversationsRepo } from '#shared/data/conversations.ts';
import {
  examplesRepo,
  MAX_NONE_EXAMPLES,
  publicExample,
  sameMessage,
  type Example,
  type Target,
} from '#shared/data/examples.ts';
import { intentsRepo, type Intent } from '#shared/data/intents.ts';
import { articlesRepo } from '#shared/data/articles.ts';
import { retrying, transact, TxConditionFailed, type TxItem } from '#shared/data/tx.ts';
import { isArticleId } from '#shared/domain/knowledge/knowledge.ts';
import { after, build, find as findArticle, tenantRefused } from '#shared/domain/knowledge/articles.ts';
import { TENANT_INDEX } from '#shared/data/articles.ts';
import { taughtMarks, unansweredKeyOf, untaughtMarks, type UnansweredKey } from './unanswered.ts';
import { clock } from '#shared/core/clock.ts';

// The team teaches the assistant from what customers wrote. An example for an intent adds the
// message to its training phrases, for an article to its questions (both bump the version that
// keys the chat's cached models, so the next message uses it); a `none` example is kept as tenant
// data that the chat's model reads (shared/nlu/intents/none-examples.ts). Taking an example back removes what it added.

/** The limits of the fields an example writes into (the intent and article schemas' own). */
export const LIMITS = { trainingPhrases: 200, questions: 20, none: MAX_NONE_EXAMPLES };
/** The longest training phrase and question (the intent and article schemas' own): a longer message cannot join them. */
const LONGEST = { phrase: 500, question: 300 };
const tooLong = (message: string, max: number, what: string) => {
  if ([...message].length > max) throw fieldError('message', `must be at most ${max} characters to become ${what}`);
};

export interface ExampleInput {
  message: string;
  target: Target;
  conversationId?: string | undefined;
  messageId?: string | undefined;
}

const CHANGED = { attempts: 6, conflict: 'the target changed concurrently; try again' };
const has = (list: string[], message: string) => list.some((p) => sameMessage(p) === sameMessage(message));

const audit = (tenantId: string, actor: Actor, action: string, e: Example, createdAt: string): TxItem =>
  auditRepo.tx.put(tenantId, {
    category: 'nlu',
    action,
    actor,
    target: { type: 'example', id: e.id },
    changes:
      action === 'example.created'
        ? { message: { from: null, to: e.message }, target: { from: null, to: e.target } }
        : { message: { from: e.message, to: null }, target: { from: e.target, to: null } },
    createdAt,
  });

async function intentOf(tenantId: string, id: string): Promise<Intent> {
  const found = await intentsRepo.get(tenantId, id);
  if (!found) throw new NotFound('intent');
  const { hitCount, ...intent } = found;
  void hitCount;
  return intent;
}

/** The transaction that records `e` and adds it to its target; reads and checks the target first. */
async function teachWrites(tenantId: string, actor: Actor, e: Example, marks: TxItem[]): Promise<() => Promise<void>> {
  // Built when `e.added` is known: the stored example says whether taking it back removes anything.
  const items = () => [...examplesRepo.tx.put(tenantId, e), audit(tenantId, actor, 'example.created', e, e.createdAt)];
  if ('intentId' in e.target) {
    const before = await intentOf(tenantId, e.target.intentId);
    tooLong(e.message, LONGEST.phrase, "an intent's training phrase");
    if (has(before.trainingPhrases, e.message)) {
      e.added = false;
      const own = items();
      return () => transact([...own, ...marks]);
    }
    if (before.trainingPhrases.length >= LIMITS.trainingPhrases) {
      throw fieldError('target', `the intent has ${LIMITS.trainingPhrases} training phrases already; remove one first`);
    }
    const next: Intent = {
      ...before,
      trainingPhrases: [...before.trainingPhrases, e.message],
      updatedAt: after(before.updatedAt),
    };
    const [ex, guard, auditItem] = items();
    return () => intentsRepo.update(tenantId, before, next, auditItem!, [ex!, guard!, ...marks]);
  }
  if ('articleId' in e.target) {
    if (!isArticleId(e.target.articleId)) throw new NotFound('article');
    const before = await findArticle(tenantId, e.target.articleId);
    tooLong(e.message, LONGEST.question, "an article's question");
    if (has(before.questions, e.message)) {
      e.added = false;
      const own = items();
      return () => transact([...own, ...marks]);
    }
    if (before.questions.length >= LIMITS.questions) {
      throw fieldError('target', `the article has ${LIMITS.questions} questions already; remove one first`);
    }
    const now = after(before.updatedAt);
    const { article, searchable } = build(
      before.id,
      { ...before, questions: [...before.questions, e.message] },
      before.createdAt,
      now,
    );
    const [ex, guard, auditItem] = items();
    return async () => {
      try {
        await articlesRepo.replace(tenantId, before, article, searchable, auditItem!, [ex!, guard!, ...marks]);
      } catch (err) {
        if (err instanceof TxConditionFailed && err.failed[TENANT_INDEX]) await tenantRefused(tenantId);
        throw err;
      }
    };
  }
  const own = items();
  return async () => {
    try {
      await transact([...own, ...marks]);
    } catch (err) {
      // [example, guard, none count, audit]: the count's condition is the limit.
      if (err instanceof TxConditionFailed && err.failed[2] && !err.failed[1]) {
        throw fieldError('target', `a tenant has at most ${LIMITS.none} none examples`);
      }
      throw err;
    }
  };
}

/**
 * Teaches one example. The same message (case and spacing aside) taught again to the same target
 * is the example already there: `created` false, and the API answers 200 instead of 201.
 */
export async function createExample(tenantId: string, actor: Actor, input: ExampleInput) {
  if (input.messageId && !input.conversationId) throw fieldError('messageId', 'needs the conversationId it belongs to');
  // A customer's message taught leaves the unanswered list (its item is marked with the example).
  let at: UnansweredKey = null;
  if (input.conversationId && input.messageId) {
    const found = await unansweredKeyOf(tenantId, input.conversationId, input.messageId);
    if (!found) throw new NotFound('conversation');
    at = found.at;
  } else if (input.conversationId && !(await conversationsRepo.get(tenantId, input.conversationId)))
    throw new NotFound('conversation');
  return retrying(async () => {
    const found = await examplesRepo.existing(tenantId, input.target, input.message);
    if (found) {
      // Taught already (maybe from another conversation): nothing is taught, but this message is answered too.
      const marks = await taughtMarks(tenantId, at, found.id);
      if (marks.length) await transact(marks);
      return { example: publicExample(found), created: false };
    }
    const createdAt = clock.iso();
    const e: Example = {
      id: `ex_${ulid(Date.parse(createdAt))}`,
      message: input.message,
      target: input.target,
      conversationId: input.conversationId ?? null,
      messageId: input.messageId ?? null,
      createdBy: actor,
      createdAt,
      added: true,
    };
    const write = await teachWrites(tenantId, actor, e, await taughtMarks(tenantId, at, e.id));
    await write();
    return { example: publicExample(e), created: true };
  }, CHANGED);
}

export async function listExamples(
  tenantId: string,
  q: { target?: ExampleTarget | undefined; limit: number; cursor?: string | undefined },
) {
  const page = await examplesRepo.page(tenantId, q.target, q.limit, q.cursor);
  return { items: page.items.map(publicExample), nextCursor: page.nextCursor };
}

/** Takes an example back: the phrase or question it added leaves its target (if the target still has it). */
export async function deleteExample(tenantId: string, actor: Actor, id: string) {
  if (!/^ex_[0-9A-HJKMNP-TV-Z]{26}$/.test(id)) throw new NotFound('example');
  await retrying(async () => {
    const e = await examplesRepo.get(tenantId, id);
    if (!e) throw new NotFound('example');
    const now = clock.iso();
    const at =
      e.conversationId && e.messageId
        ? ((await unansweredKeyOf(tenantId, e.conversationId, e.messageId))?.at ?? null)
        : null;
    // The audit item last: the target's write takes it apart from the others.
    const own = [
      ...examplesRepo.tx.remove(tenantId, e),
      ...(await untaughtMarks(tenantId, at, e.id)),
      audit(tenantId, actor, 'example.deleted', e, now),
    ];
    const drop = (list: string[]) => list.filter((p) => sameMessage(p) !== sameMessage(e.message));
    if (e.added && 'intentId' in e.target) {
      const before = await intentsRepo.get(tenantId, e.target.intentId);
      // The last phrase stays: an intent has at least one.
      if (before && has(before.trainingPhrases, e.message) && drop(before.trainingPhrases).length > 0) {
        const { hitCount, ...intent } = before;
        void hitCount;
        const next: Intent = {
          ...intent,
          trainingPhrases: drop(intent.trainingPhrases),
          updatedAt: after(intent.updatedAt),
        };
        await intentsRepo.update(tenantId, intent, next, own.at(-1)!, own.slice(0, -1));
        return;
      }
    }
    if (e.added && 'articleId' in e.target) {
      const before = await articlesRepo.get(tenantId, e.target.articleId);
      if (before && has(before.questions, e.message)) {
        const now2 = after(before.updatedAt);
        const { article, searchable } = build(
          before.id,
          { ...before, questions: drop(before.questions) },
          before.createdAt,
          now2,
        );
        try {
          await articlesRepo.replace(tenantId, before, article, searchable, own.at(-1)!, own.slice(0, -1));
        } catch (err) {
          if (err instanceof TxConditionFailed && err.failed[TENANT_INDEX]) await tenantRefused(tenantId);
          throw err;
        }
        return;
      }
    }
    await transact(own);
  }, CHANGED);
}
