import { NotFound } from '#shared/core/errors.ts';
import { conversationsRepo } from '#shared/data/conversations.ts';
import { tenantsRepo } from '#shared/data/tenants.ts';
import { unansweredRepo } from '#shared/data/unanswered.ts';
import type { TxItem } from '#shared/data/tx.ts';
import { articleProbability, evidenceFor, groupMessages, intentProbability } from '#shared/nlu/index.ts';
import { knowledgeIndexOf } from '#shared/domain/knowledge/knowledge.ts';
import { resolvePeriod } from '#shared/domain/reports/stats.ts';
import { modelFor } from './assistant.ts';
import { textVectors, unansweredVectorsOf } from '#shared/domain/vectors.ts';
import { clock } from '#shared/core/clock.ts';

// What the assistant did not answer well, kept as messages are answered and rated (the marks:
// shared/domain/unanswered-marks.ts; the items: shared/data/unanswered.ts), grouped by what the
// messages ask, with the intent or article that probably fits each group.

/** The newest items of a period one request reads: its cost stays bounded however busy the tenant. */
export const READ_CAP = 2000;
/** Examples shown per group. */
export const EXAMPLES_PER_GROUP = 5;
/**
 * A suggestion needs the messages to reach this mean (calibrated) probability for one intent or
 * article. Measured on the help desks' 1167 messages (test/bench/answers/suggestions.ts; docs/API.md,
 * Teaching): at 0.4 a quarter of the messages nothing should answer were given one ("do you sell
 * unicycles?": the warranty article); at 0.6 one in nine, while 64 % of the others still get the
 * right one (72 % at 0.4). The encoder's closeness as a second floor removed no more wrong ones.
 */
export const SUGGESTION_MIN = 0.6;
/** Where the unanswered list keeps a customer's message: its time and id, if it is a user message of that conversation. */
export async function unansweredKeyOf(tenantId: string, conversationId: string, messageId: string) {
  const found = await conversationsRepo.load(tenantId, conversationId);
  if (!found) return undefined;
  const m = found.messages.find((x) => x.id === messageId && x.role === 'user');
  return { conversation: found.conversation, at: m ? { createdAt: m.createdAt, messageId: m.id } : null };
}
export type UnansweredKey = { createdAt: string; messageId: string } | null;

/** A message taught leaves the list: marks its item (if it has one that no example marked yet). */
export async function taughtMarks(tenantId: string, at: UnansweredKey, exampleId: string): Promise<TxItem[]> {
  if (!at) return [];
  const by = await unansweredRepo.taughtBy(tenantId, at.createdAt, at.messageId);
  return by === null ? [unansweredRepo.tx.mark(tenantId, at.createdAt, at.messageId, exampleId)] : [];
}

/** The example taken back: its message comes back to the list (if this example had marked it). */
export async function untaughtMarks(tenantId: string, at: UnansweredKey, exampleId: string): Promise<TxItem[]> {
  if (!at) return [];
  const by = await unansweredRepo.taughtBy(tenantId, at.createdAt, at.messageId);
  return by === exampleId ? [unansweredRepo.tx.unmark(tenantId, at.createdAt, at.messageId, exampleId)] : [];
}

type Suggestion = { intentId: string } | { articleId: string } | null;

/** The period's unanswered messages, grouped, biggest group first, each with a suggestion when one fits. */
export async function listUnanswered(
  tenantId: string,
  q: { from?: string | undefined; to?: string | undefined; limit: number },
  now = clock.date(),
) {
  const period = resolvePeriod(q, now);
  const [tenant, items] = await Promise.all([
    tenantsRepo.get(tenantId),
    unansweredRepo.read(tenantId, period.from, period.to, READ_CAP),
  ]);
  if (!tenant) throw new NotFound('tenant');
  // By meaning too, from the vectors stored for the messages, by the chat or the indexer (no encoder here).
  const messages = items.map((i) => i.message);
  const vectors = textVectors(await unansweredVectorsOf(tenant, messages), messages);
  const groups = groupMessages(items, (i) => i.message, undefined, vectors).slice(0, q.limit);
  if (groups.length === 0) return { period, groups: [] };
  const [model, index] = await Promise.all([modelFor(tenant), knowledgeIndexOf(tenant)]);
  // On the chat's own scale: the calibrated probability that the intent or article is the right
  // answer; a text repeated across examples and groups is weighed once.
  const weighed = new Map<string, Array<[string, number]>>();
  const weigh = (t: string) => {
    let w = weighed.get(t);
    if (!w) {
      const { intents, articles } = evidenceFor(model, index, t, undefined, vectors?.get(t.trim()));
      w = [];
      if (intents[0]) w.push([`i:${intents[0].ranked.intent}`, intentProbability(intents[0].evidence)]);
      if (articles[0]) w.push([`a:${articles[0].hit.articleId}`, articleProbability(articles[0].evidence)]);
      weighed.set(t, w);
    }
    return w;
  };
  const suggest = (texts: string[]): Suggestion => {
    const sum = new Map<string, number>();
    for (const t of texts) for (const [k, c] of weigh(t)) sum.set(k, (sum.get(k) ?? 0) + c);
    const best = [...sum].sort((a, b) => b[1] - a[1])[0];
    if (!best || best[1] / texts.length < SUGGESTION_MIN) return null;
    if (best[0].startsWith('a:')) return { articleId: best[0].slice(2) };
    const intent = model.byName.get(best[0].slice(2));
    return intent ? { intentId: intent.id } : null;
  };
  return {
    period,
    groups: groups.map((g) => {
      const examples = g.members.slice(0, EXAMPLES_PER_GROUP);
      return {
        label: g.label.message,
        count: g.members.length,
        examples: examples.map(({ message, confidence, conversationId, messageId, createdAt }) => ({
          message,
          confidence,
          conversationId,
          messageId,
          createdAt,
        })),
        suggestion: suggest(
          [g.label.message, ...examples.filter((e) => e !== g.label).map((e) => e.message)].slice(
            0,
            EXAMPLES_PER_GROUP,
          ),
        ),
      };
    }),
  };
}
