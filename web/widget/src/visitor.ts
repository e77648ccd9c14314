import { asApiError, type Fail } from './failure.ts';
import type { WidgetState } from './state.ts';
import type { Api } from './transport.ts';
import type { Visitor } from './types.ts';
import type { PanelRef } from './views/panel.ts';
import { pastCard } from './views/past.ts';

// Who the customer is, as the site says (identify, logout), and a signed-in customer's earlier
// conversations: the list, and reopening one of them.

/** The facts as the API takes them: trimmed, empty ones left out; null without a user id. */
export function visitorOf(v: Partial<Record<keyof Visitor, unknown>> | null | undefined): Visitor | null {
  const pick = (x: unknown) => (typeof x === 'string' || typeof x === 'number' ? String(x).trim() : '') || undefined;
  const userId = pick(v?.userId);
  if (!userId) return null;
  const out: Visitor = { userId };
  for (const k of ['name', 'email', 'userHash', 'emailHash'] as const) {
    const x = pick(v?.[k]);
    if (x) out[k] = x;
  }
  return out;
}

/** The visitor with the site's signature; null for one the site did not sign. */
export const signed = (state: WidgetState) => {
  const v = state.visitor;
  return v?.userHash ? { ...v, userHash: v.userHash } : null;
};

/** `startOver`: a new conversation on this page; `readHistory`: the current one read from the server. */
export function createVisitor(
  state: WidgetState,
  ui: PanelRef,
  api: Api,
  fail: Fail,
  conversation: { startOver(): void; readHistory(): Promise<void> },
) {
  function identify(input: Visitor | null) {
    const v = visitorOf(input);
    if (input && !v) {
      console.error('SupportWidget.identify: userId is required');
      return;
    }
    state.visitor = v;
    state.past = null;
    // A conversation kept for another signed-in customer is not this one's to read. (A page that
    // names nobody keeps it: the site may identify the customer a moment later.) Until this browser's
    // copy is read, its first read leaves such a conversation out (state.ts): no read at load for it.
    if (v && state.loaded && state.saved.userId && state.saved.userId !== v.userId) conversation.startOver();
    showPast();
    if (state.isOpen) void loadPast();
  }

  /** A signed-in customer's conversations, from any device (read once per page, when the panel opens). */
  async function loadPast() {
    const v = signed(state);
    if (!v || !state.info) return;
    const asked = state.visitor;
    try {
      const r = await api.mine(v);
      if (state.visitor !== asked) return;
      state.past = r.items;
      showPast();
    } catch (err) {
      fail(
        err,
        asApiError(err).failure === 'identity'
          ? null
          : () => {
              void loadPast();
            },
      );
    }
  }

  /** The link to the list, when there is another conversation; the latest few above a fresh one (a panel not built yet gets them when built). */
  function showPast() {
    if (!ui.built()) return;
    const view = ui();
    const items = state.past ?? [];
    const current = state.saved.conversationId;
    view.pastLink.hidden = !items.some((c) => c.id !== current);
    view.pastCard.replaceChildren(...(current || !items.length ? [] : [pastCard(items, reopen)]));
  }

  /** Back to an earlier conversation: its history read, the live channel on it. */
  function reopen(id: string) {
    conversation.startOver();
    state.save({ conversationId: id, ...(state.visitor ? { userId: state.visitor.userId } : {}) });
    state.historyRead = false;
    showPast();
    ui().announce('Earlier conversation reopened.');
    ui().input.focus();
    void conversation.readHistory();
  }

  /** The whole list, in place of the conversation; `from` gets focus back. */
  function openList(from: HTMLElement) {
    ui().past.open(
      state.past ?? [],
      state.saved.conversationId,
      reopen,
      () => {
        conversation.startOver();
        ui().input.focus();
      },
      from,
    );
  }

  return { identify, loadPast, showPast, openList };
}
