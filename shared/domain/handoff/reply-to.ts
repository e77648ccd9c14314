import type { Conversation } from '#shared/data/conversations.ts';
import { liveRepo } from '#shared/data/live.ts';

/**
 * Where an agent's reply goes besides the conversation: `live`, the widget customer has it open
 * now; `email`, the address it is also emailed to: an email conversation's customer, or the address
 * a widget customer left for the reply (the widget asks for one while the team is away) when they
 * have no live socket on it, so would not see the reply in time (`live`: `liveRepo.liveIn`).
 */
export function replyTarget(conv: Conversation, live: boolean): { live: boolean; email: string | null } {
  if (conv.channel === 'email') return { live: false, email: conv.email?.customer ?? null };
  return { live, email: live ? null : (conv.visitor?.email ?? null) };
}

/** `replyTarget`'s address alone: who is live is asked only when there is an address to send to. */
export async function replyEmail(tenantId: string, conv: Conversation): Promise<string | null> {
  if (conv.channel === 'email') return conv.email?.customer ?? null;
  const email = conv.visitor?.email;
  return email && !(await liveRepo.customerLive(tenantId, conv.id)) ? email : null;
}
