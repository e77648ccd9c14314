import { asApiError, type Fail } from './failure.ts';
import type { WidgetState } from './state.ts';
import type { Api } from './transport.ts';
import { emailCard } from './views/cards.ts';
import { awayText, hoursText } from './views/hours.ts';
import type { PanelRef } from './views/panel.ts';

// Business hours: the line under the title (the settings read again once the team is back), and
// while the team is away, the address the reply is to go to.

export function createHours(state: WidgetState, ui: PanelRef, api: Api, fail: Fail) {
  let timer: ReturnType<typeof setTimeout> | undefined;

  /** The line under the title, in a panel built already (a new one gets it when built). */
  function line() {
    const { info } = state;
    if (info && ui.built()) ui().setStatus(hoursText(info), !info.online);
  }

  function show() {
    const { info } = state;
    if (!info) return;
    line();
    clearTimeout(timer);
    const wait = info.nextOpenAt ? Date.parse(info.nextOpenAt) - Date.now() : NaN;
    // Read the settings again once the team is back (within a day; a longer stay is a new page load).
    if (!info.online && wait < 86_400_000) {
      // At least 30 s apart: a clock behind the server's must not turn this into a busy loop.
      timer = setTimeout(
        () => {
          api.widget().then(
            (i) => {
              state.info = i;
              show();
            },
            () => {},
          );
        },
        Math.max(wait + 1000, 30_000),
      );
    }
  }

  /**
   * While the team is away: an address for the reply, unless the customer has given one. The ask
   * is kept (per ticket) so that a reload shows the box again while the team is still away.
   */
  function askEmail(focus = true) {
    const { conversationId, ticketId } = state.saved;
    if (!conversationId || state.saved.email || state.visitor?.email || ui().extra.querySelector('#sw-email')) return;
    if (ticketId && state.saved.emailAsked !== ticketId) state.save({ emailAsked: ticketId });
    const card = emailCard(
      `${awayText(state.info?.nextOpenAt ?? null)} Leave your email address and we'll reply to it.`,
      (email) => {
        const attempt = async () => {
          card.submit.disabled = true;
          try {
            await api.contact(conversationId, email);
            state.save({ email, emailAsked: undefined });
            const thanks = card.done(email);
            // In the transcript at this time: a later message (the team's reply) comes under it.
            state.shown.push({
              id: `contact:${conversationId}`,
              role: 'assistant',
              content: thanks.text,
              at: new Date().toISOString(),
              el: thanks.item,
            });
            ui().list.append(thanks.item);
            thanks.focus();
          } catch (err) {
            const e = asApiError(err);
            if (e.failure === 'refused') card.invalid('Please enter a valid email address, like name@example.com.');
            else
              fail(e, () => {
                void attempt();
              });
          } finally {
            card.submit.disabled = false;
          }
        };
        void attempt();
      },
    );
    const view = ui();
    view.extra.replaceChildren(card.form);
    view.scrollDown();
    if (focus) card.field.focus();
  }

  /** After a reload: the box again if it was asked for this ticket, the ticket is still with the team and the team still away. */
  function askAgain(ticketActive: boolean) {
    const { saved, info } = state;
    if (info && !info.online && ticketActive && saved.ticketId && saved.emailAsked === saved.ticketId) askEmail(false);
  }

  return { show, line, askEmail, askAgain, destroy: () => clearTimeout(timer) };
}
