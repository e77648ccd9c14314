import type { Fail } from './failure.ts';
import type { Shown, WidgetState } from './state.ts';
import { type Api, newKey } from './transport.ts';
import type { Transcript } from './transcript.ts';
import type { Reply } from './types.ts';
import { escalateCard, ratingCard } from './views/cards.ts';
import { hoursText } from './views/hours.ts';
import type { PanelRef } from './views/panel.ts';

// The customer and a person of the team: asking for one (with a reason), and rating the help once
// the ticket is resolved.

const DEFAULT_REASON = 'The customer asked to talk to a person.';

export interface Conversation {
  /** Sends a message the transcript shows already (`handover`: as the reason for a person); null when it failed (the customer was told). */
  send(text: string, s: Shown, key: string, handover?: boolean): Promise<Reply | null>;
  setTicket(id: string, status: string, number?: number | null): void;
  /** While the team is away: an address for the reply. */
  askEmail(): void;
}

export function createHandoff(
  state: WidgetState,
  ui: PanelRef,
  api: Api,
  fail: Fail,
  transcript: Transcript,
  conversation: Conversation,
) {
  function showEscalate() {
    const view = ui();
    view.notice.clear();
    const card = escalateCard(
      transcript.lastUser(),
      !state.saved.conversationId,
      (reason) => {
        void escalate(reason, card.form, card.submit);
      },
      () => view.handoff.focus(),
      state.info && !state.info.online ? hoursText(state.info) : null,
    );
    view.extra.replaceChildren(card.form);
    view.scrollDown();
    card.field.focus();
  }

  async function escalate(reason: string, form: HTMLFormElement, submit: HTMLButtonElement) {
    if (state.busy) return;
    // A reason the customer typed is a message of the conversation, so the team reads it in the
    // transcript; sent as a handover, nothing answers it but the handover itself (not the
    // assistant's "Sorry, I didn't get that" first). That is also how a new conversation starts.
    if (reason && reason !== transcript.lastUser()) {
      form.remove();
      await conversation.send(reason, transcript.local('user', reason, 'You asked for a person'), newKey(), true);
      return;
    }
    if (!state.saved.conversationId) return;
    const conversationId = state.saved.conversationId;
    const key = newKey();
    const view = ui();
    const attempt = async (): Promise<void> => {
      state.busy = true;
      submit.disabled = true;
      view.setTyping(true);
      try {
        const r = await api.escalate(conversationId, reason || DEFAULT_REASON, key);
        form.remove();
        // The server stored this text as an assistant message; a live event may have brought it already.
        if (!state.shown.some((s) => s.role === 'assistant' && s.content === r.message)) {
          transcript.local('assistant', r.message);
          view.announce(`Assistant says: ${r.message}`);
        }
        conversation.setTicket(r.ticketId, 'open', r.ticketNumber);
        if (r.emailRequested) conversation.askEmail();
        else view.input.focus();
      } catch (err) {
        fail(err, () => {
          void attempt();
        });
      } finally {
        state.busy = false;
        submit.disabled = false;
        view.setTyping(false);
      }
    };
    await attempt();
  }

  function showRating(ticketId: string) {
    const view = ui();
    if (view.extra.querySelector('.rating')) return;
    const card = ratingCard((score, comment) => {
      const conversationId = state.saved.conversationId;
      if (!conversationId || card.submit.disabled) return;
      // One key for this rating and its retries: a double click or a retry rates once.
      const key = newKey();
      const attempt = async () => {
        card.submit.disabled = true;
        try {
          await api.rate(conversationId, score, comment, key);
          state.save({ rated: ticketId });
          card.thank();
        } catch (err) {
          fail(err, () => {
            void attempt();
          });
        } finally {
          card.submit.disabled = false;
        }
      };
      void attempt();
    });
    view.extra.replaceChildren(card.form);
    view.scrollDown();
  }

  return { showEscalate, showRating };
}
