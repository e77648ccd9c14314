import { conversationsRepo, type Conversation, type Message, type Metadata } from '#shared/data/conversations.ts';
import type { TxItem } from '#shared/data/tx.ts';
import { eventsRepo } from '#shared/data/events.ts';
import { unansweredRepo, type Unanswered, type UnansweredReason } from '#shared/data/unanswered.ts';

// The marks on the unanswered list (shared/data/unanswered.ts) that a chat answer and a rating
// write in their own transactions: here, below both the assistant and the handoff wings, which
// write them; assistant/unanswered.ts reads the list back.

/** Under this confidence an answer counts as unsure, whatever the tenant's thresholds. */
export const LOW_CONFIDENCE = 0.5;
/** Marks a low rating writes: the conversation's latest answered messages (a transaction takes at most 100 items). */
const RATED_MARKS = 40;

const ratedLow = (c: Pick<Conversation, 'rating'>) => c.rating !== undefined && c.rating.score <= 2;

function reasonsOf(metadata: Metadata, rated: boolean): UnansweredReason[] {
  const r: UnansweredReason[] = [];
  if (metadata.intentDetected === 'fallback') r.push('fallback');
  else if (metadata.confidence < LOW_CONFIDENCE) r.push('low_confidence');
  if (rated) r.push('rated_low');
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

/** The unanswered item of a message pair, in the pair's transaction, when it qualifies. */
export function unansweredWrite(tenantId: string, conv: Conversation, user: Message, metadata: Metadata): TxItem[] {
  const reasons = reasonsOf(metadata, ratedLow(conv));
  // The event has the indexer embed the message, so the unanswered view groups it by meaning.
  return reasons.length
    ? [
        unansweredRepo.tx.put(tenantId, item(conv.id, user, metadata, reasons)),
        eventsRepo.tx.contentChanged(tenantId, 'unanswered'),
      ]
    : [];
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
  const pairs: Array<{ user: Message; metadata: Metadata }> = [];
  let last: Message | null = null;
  for (const m of found.messages) {
    if (m.role === 'user') last = m;
    else if (m.role === 'assistant' && m.metadata && last) {
      pairs.push({ user: last, metadata: m.metadata });
      last = null;
    }
  }
  return pairs.slice(-RATED_MARKS).map(({ user, metadata }) => {
    const reasons = reasonsOf(metadata, rated);
    return reasons.length
      ? unansweredRepo.tx.put(tenantId, item(conv.id, user, metadata, reasons))
      : unansweredRepo.tx.remove(tenantId, user.createdAt, user.id);
  });
}
