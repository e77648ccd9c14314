import { conversationsRepo, type Conversation, type Message, type Metadata } from '#shared/data/conversations.ts';
import type { TxItem } from '#shared/data/tx.ts';
import { eventsRepo } from '#shared/data/events.ts';
import { unansweredRepo, type Unanswered, type UnansweredReason } from '#shared/data/unanswered.ts';
import { HANDOVER_INTENT, KNOWLEDGE_INTENT } from '#shared/core/vocabulary.ts';
import { isSmallTalk } from './small-talk.ts';

// The marks on the unanswered list (shared/data/unanswered.ts) that a chat answer and a rating
// write in their own transactions: here, below both the assistant and the handoff wings, which
// write them; assistant/unanswered.ts reads the list back.

/** Under this confidence an answer counts as unsure, whatever the tenant's thresholds. */
export const LOW_CONFIDENCE = 0.5;
/** Marks a low rating writes: the conversation's latest answered messages (a transaction takes at most 100 items). */
const RATED_MARKS = 40;

const ratedLow = (c: Pick<Conversation, 'rating'>) => c.rating !== undefined && c.rating.score <= 2;

/**
 * An answer from the team's content: an article, or an intent that states something about the
 * business. Not a fallback, not the hand-over's note, not small talk ("hi there", "thanks", "bye",
 * "get me a person"): a rating or a complaint about those says nothing about what to teach.
 */
const fromContent = (m: Metadata) =>
  m.intentDetected === KNOWLEDGE_INTENT ||
  (m.intentDetected !== 'fallback' && m.intentDetected !== HANDOVER_INTENT && !isSmallTalk(m.intentDetected));

function reasonsOf(metadata: Metadata, rated: boolean): UnansweredReason[] {
  const r: UnansweredReason[] = [];
  if (metadata.intentDetected === 'fallback') r.push('fallback');
  else if (metadata.confidence < LOW_CONFIDENCE) r.push('low_confidence');
  if (rated && fromContent(metadata)) r.push('rated_low');
  return r;
}

const item = (conversationId: string, user: Message, metadata: Metadata, reasons: UnansweredReason[]): Unanswered => ({
  message: user.content,
  confidence: metadata.confidence,
  conversationId,
  messageId: user.id,
  createdAt: user.createdAt,
  reasons,
});

/**
 * The unanswered item of a message pair, in the pair's transaction, when it qualifies. `vector`:
 * what stores the message's vector, which the chat read (shared/domain/vectors.ts
 * `unansweredVector`; empty when it is stored already); absent when the chat read none, and the
 * event has the indexer embed the message. Either way the unanswered view groups it by meaning.
 */
export function unansweredWrite(
  tenantId: string,
  conv: Conversation,
  user: Message,
  metadata: Metadata,
  vector?: TxItem[],
): TxItem[] {
  const reasons = reasonsOf(metadata, ratedLow(conv));
  if (!reasons.length) return [];
  return [
    unansweredRepo.tx.put(tenantId, item(conv.id, user, metadata, reasons)),
    ...(vector ?? [eventsRepo.tx.contentChanged(tenantId, 'unanswered')]),
  ];
}

/**
 * A rating that moves a conversation into (or out of) 1 or 2 marks (or unmarks) its latest answered
 * messages, in the rating's transaction; any other rating writes nothing and reads nothing.
 */
export async function ratingMarks(tenantId: string, conv: Conversation, score: number): Promise<TxItem[]> {
  const rated = score <= 2;
  if (rated === ratedLow(conv)) return [];
  const found = await conversationsRepo.load(tenantId, conv.id);
  if (!found) return [];
  return pairsOf(found.messages)
    .slice(-RATED_MARKS)
    .map(({ user, metadata }) => {
      const reasons = reasonsOf(metadata, rated);
      return reasons.length
        ? unansweredRepo.tx.put(tenantId, item(conv.id, user, metadata, reasons))
        : unansweredRepo.tx.remove(tenantId, user.createdAt, user.id);
    });
}

/** Each customer message the assistant answered, with the answer's metadata, oldest first. */
function pairsOf(messages: readonly Message[]) {
  const pairs: Array<{ user: Message; metadata: Metadata }> = [];
  let last: Message | null = null;
  for (const m of messages) {
    if (m.role === 'user') last = m;
    else if (m.role === 'assistant' && m.metadata && last) {
      pairs.push({ user: last, metadata: m.metadata });
      last = null;
    }
  }
  return pairs;
}

/**
 * What customers write when an answer was wrong. The NLU has no intent for it (a team's intents are
 * about its business), so a short list, matched on the message in lower case with its apostrophes
 * and punctuation dropped: the message must be little more than the complaint (at most 12 words),
 * so "is that wrong size returnable?" is a question, not a verdict.
 */
const SAID_WRONG = [
  /\b(thats|its|that is|this is|it is|that was|this was|it was|answer is|answer was) (wrong|incorrect|not right|not correct|not true|false)\b/,
  /\bwrong answer\b/,
  /\bnot what i (asked|meant|wanted|said)\b/,
  /\b(you|that|this|it) (did not|didnt|does not|doesnt) answer (my|the) question\b/,
  /\bthats not it\b/,
  /^(no )?(wrong|incorrect|nope wrong)$/,
];
const MAX_COMPLAINT_WORDS = 12;

/** The customer says the answer before was wrong ("that's wrong", "no that's not what I asked"). */
export function saysWrong(message: string): boolean {
  const text = message
    .toLowerCase()
    .replace(/['\u2019]/g, '')
    .replace(/[^a-z0-9 ]+/g, ' ')
    .replace(/\s+/g, ' ')
    .trim();
  if (!text || text.split(' ').length > MAX_COMPLAINT_WORDS) return false;
  return SAID_WRONG.some((r) => r.test(text));
}

/**
 * The customer's next step right after an answer says it failed them (they asked for a person, or
 * said it was wrong): the answer before, when it was a confident one from the team's content, goes on
 * the unanswered list with that reason (an unsure one is there already). One read of the
 * conversation's messages, only on such a step; in the step's own transaction.
 */
export async function followUpMarks(
  tenantId: string,
  conversationId: string,
  reason: 'handed_over' | 'said_wrong',
): Promise<TxItem[]> {
  const found = await conversationsRepo.load(tenantId, conversationId);
  if (!found) return [];
  // "At once": the conversation's latest message is that answer (nobody wrote after it).
  const latest = found.messages.at(-1);
  const pair = pairsOf(found.messages).at(-1);
  if (!pair || latest?.role !== 'assistant' || latest.metadata !== pair.metadata) return [];
  const { user, metadata } = pair;
  if (!fromContent(metadata) || metadata.confidence < LOW_CONFIDENCE) return [];
  const reasons = [...reasonsOf(metadata, ratedLow(found.conversation)), reason];
  return [
    unansweredRepo.tx.put(tenantId, item(conversationId, user, metadata, reasons)),
    eventsRepo.tx.contentChanged(tenantId, 'unanswered'),
  ];
}
