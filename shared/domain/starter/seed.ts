import type { Intent } from '#shared/data/intents.ts';
import { newId } from '#shared/core/clock.ts';
import { starterIntents } from './intents.ts';

/**
 * The content a new tenant starts with, so that chat works at once: today the starter intents,
 * created at `now`. Onboarding writes it in the tenant's own transaction and knows nothing of it.
 */
export function starterContent(now: string): { intents: Intent[] } {
  const intents = starterIntents.map((s) => ({
    ...s,
    id: newId(),
    enabled: true,
    starter: true,
    createdAt: now,
    updatedAt: now,
  }));
  return { intents };
}
