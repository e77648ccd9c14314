import { logger } from '#shared/core/log.ts';
import { conversationsRepo, type Conversation } from '#shared/data/conversations.ts';
import { resolutionsRepo, SLOT_MS, slotOf, type DueEntry } from '#shared/data/resolutions.ts';
import { clock } from '#shared/core/clock.ts';

// The "resolved by the assistant" job (docs/API.md, Statistics), run every 10 minutes: a conversation
// counts once 30 minutes have passed since its last message, it has no ticket, at least one answer
// was not a fallback, and no rating under 3. Each run reads the slots of the last 3 hours that are
// over (a run that failed is made up by the next ones) and leaves nothing behind it.

const LOOK_BACK_MS = 3 * 60 * 60_000;

/** Whether the conversation, as read now, counts for the entry. */
export function resolvedByAssistant(conv: Conversation | null, e: DueEntry): conv is Conversation {
  return (
    conv !== null &&
    !conv.resolutionCountedAt &&
    !conv.latestTicketId &&
    (conv.lastCustomerMessageAt ?? conv.createdAt) === e.lastAt &&
    (conv.assistantAnswers ?? 0) > 0 &&
    !(conv.rating && conv.rating.score < 3)
  );
}

export async function runResolutions(now = clock.date()): Promise<{ judged: number; counted: number }> {
  let judged = 0;
  let counted = 0;
  // Slots that are over: every entry in them was due by now.
  const last = Math.floor(now.getTime() / SLOT_MS) * SLOT_MS - SLOT_MS;
  for (let ms = last - LOOK_BACK_MS; ms <= last; ms += SLOT_MS) {
    for (const e of await resolutionsRepo.dueIn(slotOf(ms))) {
      judged++;
      const conv = await conversationsRepo.get(e.tenantId, e.conversationId, true);
      if (resolvedByAssistant(conv, e) && (await resolutionsRepo.count(e, conv, now.toISOString()))) counted++;
      else await resolutionsRepo.drop(e);
    }
  }
  logger.info('resolutions run', { judged, counted });
  return { judged, counted };
}
