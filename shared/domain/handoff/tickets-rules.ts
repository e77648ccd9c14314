// The ticket state machine; pure, so it is unit tested on its own.
import type { TicketStatus } from '#shared/core/vocabulary.ts';

const MOVES: Record<TicketStatus, readonly TicketStatus[]> = {
  open: ['in_progress', 'waiting', 'resolved', 'closed'],
  in_progress: ['open', 'waiting', 'resolved', 'closed'],
  waiting: ['in_progress', 'resolved', 'closed'],
  resolved: ['open', 'closed'],
  closed: [],
};

export const canMove = (from: TicketStatus, to: TicketStatus) => MOVES[from].includes(to);

/** Where a ticket may go from `from`; the dashboard offers only these. */
export const nextStatuses = (from: TicketStatus): readonly TicketStatus[] => MOVES[from];

/** Tickets that count as open for the KPI (neither resolved nor closed) and that an escalation reuses. */
export const isActive = (s: TicketStatus) => s === 'open' || s === 'in_progress' || s === 'waiting';
