import type { Shown, WidgetState } from './state.ts';
import type { Api } from './transport.ts';
import type { Message, Source, TextFormat } from './types.ts';
import { asApiError } from './failure.ts';
import { bubble } from './views/messages.ts';
import { failureText } from './views/notice.ts';
import type { PanelRef } from './views/panel.ts';

// The transcript: messages on screen, each once (by id, or by role and text until the server names
// it), in the server's order; the reason given for a person; the articles an answer cites.

export type Transcript = ReturnType<typeof createTranscript>;

/** `counted`: a message arrived while the panel was closed (the launcher shows the count). */
export function createTranscript(state: WidgetState, ui: PanelRef, api: Api, counted: () => void) {
  const draw = (m: Parameters<typeof bubble>[0]) =>
    bubble(m, (s, from) => {
      void showArticle(s, from);
    });

  async function showArticle(s: Source, from: HTMLElement) {
    const pane = ui().article.open(s.title, from);
    try {
      const { article } = await api.article(s.articleId);
      pane.show(article);
    } catch (err) {
      pane.failed(failureText(asApiError(err), false));
    }
  }

  /**
   * Adds a message unless it is there already: by id, or (for what this page sent before the
   * server named it) by role and text. Returns whether it was new.
   */
  function merge(m: Message, sources?: Source[], format?: TextFormat): boolean {
    const { shown } = state;
    if (m.id && shown.some((s) => s.id === m.id)) return false;
    const pending = shown.find((s) => s.id === null && s.role === m.role && s.content === m.content);
    if (pending) {
      pending.id = m.id;
      pending.at = m.createdAt;
      state.seenThrough(m.createdAt);
      return false;
    }
    const el = draw({
      role: m.role,
      content: m.content,
      author: m.author,
      sources: sources ?? m.metadata?.sources ?? m.sources,
      format: format ?? m.metadata?.format ?? m.format,
    });
    shown.push({ id: m.id, role: m.role, content: m.content, at: m.createdAt, el });
    ui().list.append(el);
    return true;
  }

  return {
    merge,

    /**
     * The reason the customer gave when asking for a person, in the transcript where they asked
     * (the service keeps it on the ticket, not as a message; this browser keeps it for the next page).
     */
    showReason() {
      const r = state.saved.reason;
      if (!r || r.ticketId !== state.saved.ticketId) return;
      const id = `reason:${r.ticketId}`;
      if (state.shown.some((s) => s.id === id)) return;
      const el = draw({ role: 'user', content: r.text, note: 'You asked for a person' });
      state.shown.push({ id, role: 'user', content: r.text, at: r.at, el });
      ui().list.append(el);
    },

    /** Server messages by time, then what this page has not yet seen confirmed. */
    order() {
      const sorted = [...state.shown].sort(
        (a, b) => (a.id === null ? 1 : 0) - (b.id === null ? 1 : 0) || (a.at < b.at ? -1 : a.at > b.at ? 1 : 0),
      );
      for (const s of sorted) ui().list.append(s.el);
    },

    /** A message that arrived by itself (live channel or a reply): shown, announced, counted while closed. */
    arrive(m: Message, sources?: Source[], format?: TextFormat) {
      if (!merge(m, sources, format)) return;
      if (m.role !== 'user') {
        ui().announce(`${m.role === 'agent' ? m.author?.name || 'Support team' : 'Assistant'} says: ${m.content}`);
        if (!state.isOpen) {
          state.unread++;
          state.save({ unread: state.unread });
          counted();
        }
      }
      if (state.isOpen) state.seen();
      ui().scrollDown();
    },

    /** A message shown before the server has named it (its id comes with a history read or live event). */
    local(role: Message['role'], content: string, note?: string): Shown {
      const s: Shown = { id: null, role, content, at: new Date().toISOString(), el: draw({ role, content, note }) };
      state.shown.push(s);
      const view = ui();
      view.list.append(s.el);
      view.scrollDown();
      return s;
    },

    /** The customer's last message on screen ('' when none). */
    lastUser: () => [...state.shown].reverse().find((s) => s.role === 'user')?.content ?? '',

    /** Everything off the screen (a new conversation). */
    clear() {
      for (const s of state.shown) s.el.remove();
      state.shown.length = 0;
    },
  };
}
