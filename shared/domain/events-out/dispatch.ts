import type { DomainEvent } from '#shared/core/vocabulary.ts';
import { fanOut } from './deliveries.ts';
import { pushLive } from '#shared/domain/handoff/live.ts';

/**
 * The one consumer of the event outbox: each event goes to the live connections that see it and
 * is fanned out to the integrations that take it. Returns the index of the first event whose
 * fan-out failed (it and those after it are retried), or -1. Live pushes are best effort.
 */
export async function dispatchEvents(events: DomainEvent[]): Promise<number> {
  await pushLive(events);
  for (let i = 0; i < events.length; i++) {
    try {
      await fanOut(events[i]!);
    } catch {
      return i;
    }
  }
  return -1;
}
