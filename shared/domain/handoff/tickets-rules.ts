// The ticket state machine (its moves are vocabulary, shared with the dashboard); pure, so it is unit tested on its own.
import { TICKET_MOVES, type ConversationStage, type TicketStatus } from '#shared/core/vocabulary.ts';
import type { Conversation } from '#shared/data/conversations.ts';

export const canMove = (from: TicketStatus, to: TicketStatus) => TICKET_MOVES[from].includes(to);

/** Tickets that count as open for the KPI (neither resolved nor closed) and that an escalation reuses. */
export const isActive = (s: TicketStatus) => s === 'open' || s === 'in_progress' || s === 'waiting';

/** What the conversation needs now (see CONVERSATION_STAGES); null while no ticket was ever opened. */
export function stageOf(
  c: Pick<
    Conversation,
    'status' | 'latestTicketId' | 'latestTicketStatus' | 'lastAgentMessageAt' | 'lastCustomerMessageAt' | 'createdAt'
  >,
): ConversationStage | null {
  if (c.status === 'closed') return 'done';
  const s = c.latestTicketId ? c.latestTicketStatus : undefined;
  if (!s) return null;
  if (!isActive(s)) return 'done';
  if (s === 'waiting') return 'waiting_for_customer';
  return (c.lastAgentMessageAt ?? '') > (c.lastCustomerMessageAt ?? c.createdAt)
    ? 'waiting_for_customer'
    : 'waiting_for_us';
}
