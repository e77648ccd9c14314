import { ACTIVE_TICKET, type WidgetState } from './state.ts';
import type { PanelRef } from './views/panel.ts';

// Typing, both ways: the customer's signals to the team (throttled, over the live socket), and an
// agent's "is typing" line, shown until their message comes or their signals stop.

/** Sent at most this often while the customer types; an agent's shown this long after their last signal. */
const TYPING_SIGNAL_MS = 2000;
const TYPING_SHOWN_MS = 6000;

export function createTyping(state: WidgetState, ui: PanelRef) {
  let sentAt = 0;
  let agentTimer: ReturnType<typeof setTimeout> | undefined;
  let agentPresent = false;

  /**
   * While a person of the team is on the conversation (an active ticket, or an agent who wrote or
   * typed here), they see the customer typing (throttled); a chat with the assistant alone sends nothing.
   */
  function customerTypes() {
    const { saved } = state;
    const person =
      (saved.ticketStatus !== undefined && ACTIVE_TICKET.includes(saved.ticketStatus)) ||
      agentPresent ||
      state.shown.some((s) => s.role === 'agent');
    if (!saved.conversationId || !person || !ui().input.value.trim()) return;
    const now = Date.now();
    if (now - sentAt < TYPING_SIGNAL_MS) return;
    if (state.live?.send({ action: 'typing', conversationId: saved.conversationId })) sentAt = now;
  }

  /** An agent typing (`name`, '' when unnamed), or done (null: their message came). */
  function agentTypes(name: string | null) {
    if (name !== null) agentPresent = true;
    clearTimeout(agentTimer);
    // Nobody typing in a panel not built yet: nothing to hide.
    if (name !== null || ui.built()) ui().setAgentTyping(name);
    if (name !== null) agentTimer = setTimeout(() => ui().setAgentTyping(null), TYPING_SHOWN_MS);
  }

  return {
    /** The customer typed in the message box. */
    customerTypes,
    agentTypes,
    /** A new conversation: no agent on it yet. */
    reset() {
      agentTypes(null);
      agentPresent = false;
    },
    destroy() {
      clearTimeout(agentTimer);
    },
  };
}
