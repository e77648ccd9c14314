import type { Failure } from '../types.ts';
import { h } from './dom.ts';

// The notice above the composer: what went wrong, in words, with at most one action.

const FAILURE_TEXT: Record<Failure, string> = {
  offline: "You're offline. We'll send it as soon as your connection is back.",
  unreachable: "We can't reach the chat service right now. Check your connection and try again.",
  'rate-limited': "You're sending messages faster than we can answer.",
  failing: 'Something went wrong on our side. Please try again.',
  origin: "This chat isn't enabled on this website.",
  key: 'This chat is not available right now.',
  identity: "We couldn't confirm that you're signed in, so this wasn't sent. Please sign in again or reload the page.",
  'sign-in': 'This chat is for signed-in customers. Please sign in on this site to chat with us.',
  'not-found': 'That could not be found.',
  closed: 'This conversation has ended.',
  refused: 'That could not be sent.',
};

/** What went wrong, in words; a wait the server asked for (Retry-After) is said too. */
export function failureText(e: { failure: Failure; retryAfter: number | null }, retrying: boolean): string {
  const wait = e.retryAfter ?? 0;
  let text = FAILURE_TEXT[e.failure];
  if (retrying && wait > 0 && (e.failure === 'rate-limited' || e.failure === 'failing')) {
    text += ` We'll try again in ${wait} second${wait === 1 ? '' : 's'}.`;
  } else if (e.failure === 'rate-limited') {
    text += ' Please wait a moment, then try again.';
  }
  return text;
}

export interface NoticeAction {
  label: string;
  run: () => void;
  /** Seconds the button stays disabled; then the action runs by itself. */
  after?: number;
  /** The action runs by itself when the browser is back online. */
  whenOnline?: boolean;
}

export type Notice = ReturnType<typeof createNotice>;

export function createNotice() {
  const el = h('div', { class: 'notice', role: 'alert', hidden: true });
  let timer: ReturnType<typeof setTimeout> | undefined;
  let whenOnline: (() => void) | null = null;

  function clear() {
    clearTimeout(timer);
    whenOnline = null;
    el.hidden = true;
    el.replaceChildren();
  }

  function show(text: string, action?: NoticeAction) {
    clear();
    const children: Node[] = [h('p', null, text)];
    if (action) {
      const run = () => {
        clear();
        action.run();
      };
      const btn = h('button', { type: 'button', class: 'btn', onclick: run }, action.label);
      if (action.after) {
        btn.disabled = true;
        timer = setTimeout(run, action.after * 1000);
      }
      if (action.whenOnline) whenOnline = run;
      children.push(btn);
    }
    el.replaceChildren(...children);
    el.hidden = false;
  }

  return { el, clear, show, online: () => whenOnline?.() };
}
