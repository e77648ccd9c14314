import type { Fail } from './failure.ts';
import type { Shown, WidgetState } from './state.ts';
import { type Api, newKey } from './transport.ts';
import type { Transcript } from './transcript.ts';
import type { Reply } from './types.ts';
import { escalateCard, ratingCard } from './views/cards.ts';
import { hoursText } from './views/hours.ts';
import type { Panel } from './views/panel.ts';

// The customer and a person of the team: asking for one (with a reason), and rating the help once
// the ticket is resolved.

const DEFAULT_REASON = 'The customer asked to talk to a person.';

export interface Conversation {
  /** Sends a message the transcript shows already; null when it failed (the customer was told). */
  send(text: string, s: Shown, key: string): Promise<Reply | null>;
  setTicket(id: string, status: string, number?: number | null): void;
  /** While the team is away: an address for the reply. */
  askEmail(): void;
}

export function createHandoff(state: WidgetState, view: Panel, api: Api, fail: Fail, transcript: Transcript, conversation: Conversation) {
  function showEscalate() {
    view.notice.clear();
    const card = escalateCard(transcript.lastUser(), !state.saved.conversationId,
      (reason) => { void escalate(reason, card.form, card.submit); }, () => view.handoff.focus(),
      state.info && !state.info.online ? hoursText(state.info) : null);
    view.extra.replaceChildren(card.form);
    view.scrollDown();
    card.field.focus();
  }

  async function escalate(reason: string, form: HTMLFormElement, submit: HTMLButtonElement) {
    if (state.busy) return;
    // The reason joins the transcript unless it is there already: the first message of a new
    // conversation, or the customer's last message left as it was prefilled.
    const showsReason = !!reason && !!state.saved.conversationId && reason !== transcript.lastUser();
    if (!state.saved.conversationId) {
      if (!reason) return;
      // No conversation yet: the reason is its first message.
      form.remove();
      const r = await conversation.send(reason, transcript.local('user', reason), newKey());
      if (!r) return;
      if (r.metadata?.ticketId) return; // the assistant escalated it already
    }
    const conversationId = state.saved.conversationId!;
    const key = newKey();
    const askedAt = new Date().toISOString();
    const attempt = async (): Promise<void> => {
      state.busy = true;
      submit.disabled = true;
      view.setTyping(true);
      try {
        const r = await api.escalate(conversationId, reason || DEFAULT_REASON, key);
        form.remove();
        // What the customer wrote stays in their transcript, before the assistant's answer.
        if (showsReason && state.saved.reason?.ticketId !== r.ticketId) {
          state.save({ ticketId: r.ticketId, reason: { ticketId: r.ticketId, text: reason, at: askedAt } });
          transcript.showReason();
          transcript.order();
        }
        // The server stored this text as an assistant message; a live event may have brought it already.
        if (!state.shown.some((s) => s.role === 'assistant' && s.content === r.message)) {
          transcript.local('assistant', r.message);
          view.announce(`Assistant says: ${r.message}`);
        }
        conversation.setTicket(r.ticketId, 'open', r.ticketNumber);
        if (r.emailRequested) conversation.askEmail();
        else view.input.focus();
      } catch (err) {
        fail(err, () => { void attempt(); });
      } finally {
        state.busy = false;
        submit.disabled = false;
        view.setTyping(false);
      }
    };
    await attempt();
  }

  function showRating(ticketId: string) {
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
          fail(err, () => { void attempt(); });
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
