import type { Attachment, ConversationEmail, MessageEmail } from '#shared/data/conversations.ts';
import { isEmailDelivery, type Holdings } from '#shared/data/customers.ts';
import { emailRepo } from '#shared/data/email.ts';
import { objectsRepo } from '#shared/data/objects.ts';
import { bounceWindow } from '#shared/domain/email/bounce.ts';
import { autoReplyWindow, senderWindow } from '#shared/domain/email/inbound.ts';
import type { PersonalSource } from './sources.ts';

// The email channel's part of a customer's export and erasure. The fields inside the conversation
// partition (subject, addresses, Message-IDs, attachments' names, delivery `to`) are redacted with the
// rest of it by shared/data/customers.ts; this adds what lives elsewhere: the stored originals and
// attachments (mail bucket), the suppression of the address, its automatic-answer windows, and the
// lookups from Message-IDs and reply tokens to the conversation.

const itemsOf = (hs: Holdings[]) =>
  hs.flatMap((h) => h.conversation.map((i) => ({ conversationId: h.conversationId, i })));
const isMessage = (i: Record<string, unknown>) => (i.sk as string).startsWith('MSG#');

export const emailSource: PersonalSource = {
  name: 'email',

  async export(tenantId, c) {
    const items = itemsOf(c.holdings);
    const suppressions = (await Promise.all(c.emails.map((e) => emailRepo.suppression(tenantId, e)))).filter(
      (s) => s !== null,
    );
    return {
      conversations: items
        .filter(({ i }) => i.sk === 'CONV' && i.email)
        .map(({ conversationId, i }) => {
          const e = i.email as ConversationEmail;
          return { conversationId, subject: i.subject ?? null, customer: e.customer };
        }),
      messages: items
        .filter(({ i }) => isMessage(i) && (i.email || i.attachments))
        .map(({ conversationId, i }) => {
          const e = (i.email ?? {}) as MessageEmail;
          return {
            conversationId,
            messageId: i.id,
            from: e.from ?? null,
            subject: e.subject ?? null,
            messageIdHeader: e.messageId ?? null,
            attachments: ((i.attachments ?? []) as Attachment[]).map(({ name, contentType, size }) => ({
              name,
              contentType,
              size,
            })),
          };
        }),
      deliveries: items
        .filter(({ i }) => isEmailDelivery(i))
        .map(({ conversationId, i }) => ({
          conversationId,
          messageId: i.messageId,
          to: i.to ?? null,
          status: i.status,
          updatedAt: i.updatedAt,
        })),
      suppressions,
    };
  },

  async erase(tenantId, c) {
    const items = itemsOf(c.holdings).map(({ i }) => i);
    const messages = items.filter(isMessage);
    const emails = (m: Record<string, unknown>) => m.email as MessageEmail | undefined;
    await objectsRepo.remove([
      ...messages.flatMap((m) => (emails(m)?.rawKey ? [emails(m)!.rawKey!] : [])),
      ...messages.flatMap((m) => ((m.attachments ?? []) as Attachment[]).map((a) => a.key)),
    ]);
    const senders = new Set([...c.emails, ...messages.flatMap((m) => (emails(m)?.from ? [emails(m)!.from!] : []))]);
    await emailRepo.forget(tenantId, {
      emails: [...senders],
      windows: [...senders].flatMap((s) => [autoReplyWindow(s), senderWindow(s), bounceWindow(s)]),
      messageIds: messages.flatMap((m) => (emails(m)?.messageId ? [emails(m)!.messageId] : [])),
      tokens: items.flatMap((i) => (i.sk === 'CONV' && i.email ? [(i.email as ConversationEmail).token] : [])),
    });
  },
};
