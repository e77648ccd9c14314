// Whether the team is in, in the customer's own clock: "Our team replies usually within an hour."
// or "We're away — back tomorrow at 9:00 your time." One sentence for the header and every card
// that speaks of the absence, in the visitor's time zone, saying so.

const DAY = 86_400_000;

/** "today at 09:00", "tomorrow at 09:00", "on Monday at 09:00", "on 2 Jan at 09:00" (local time). */
export function backAt(iso: string, now = new Date()): string {
  const at = new Date(iso);
  const time = at.toLocaleTimeString(undefined, { hour: 'numeric', minute: '2-digit' });
  const days = Math.round((new Date(at).setHours(0, 0, 0, 0) - new Date(now).setHours(0, 0, 0, 0)) / DAY);
  const day =
    days <= 0
      ? 'today'
      : days === 1
        ? 'tomorrow'
        : `on ${at.toLocaleDateString(undefined, days < 7 ? { weekday: 'long' } : { day: 'numeric', month: 'short' })}`;
  return `${day} at ${time}`;
}

/** "We're away — back tomorrow at 9:00 your time." (or "We're away right now." when no day has hours). */
export const awayText = (nextOpenAt: string | null, now = new Date()): string =>
  nextOpenAt ? `We're away — back ${backAt(nextOpenAt, now)} your time.` : "We're away right now.";

/** The sentence under the panel's title; null when there is nothing to say (open, no reply time). */
export function hoursText(
  info: { online: boolean; nextOpenAt: string | null; replyTime: string | null },
  now = new Date(),
): string | null {
  if (info.online) return info.replyTime ? `Our team replies ${info.replyTime}.` : null;
  return awayText(info.nextOpenAt, now);
}
