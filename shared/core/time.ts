import { clock } from './clock.ts';
/**
 * The current time as an ISO timestamp, or 1 ms after `after` when the clock has not passed it: a
 * record written after another then sorts after it, even within one millisecond.
 */
export const laterThan = (after: string) => {
  const now = clock.iso();
  return now > after ? now : new Date(Date.parse(after) + 1).toISOString();
};
