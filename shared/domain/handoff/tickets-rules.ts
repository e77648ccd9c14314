// The ticket state machine (its moves are vocabulary, shared with the dashboard); pure, so it is unit tested on its own.
import { TICKET_MOVES, type TicketStatus } from '#shared/core/vocabulary.ts';

export const canMove = (from: TicketStatus, to: TicketStatus) => TICKET_MOVES[from].includes(to);

/** Tickets that count as open for the KPI (neither resolved nor closed) and that an escalation reuses. */
export const isActive = (s: TicketStatus) => s === 'open' || s === 'in_progress' || s === 'waiting';
