import { config } from '#shared/core/config.ts';
import { logger } from '#shared/core/log.ts';
import type { Actor } from '#shared/core/vocabulary.ts';
import { customersRepo } from '#shared/data/customers.ts';
import {
  conversationsRepo,
  preview,
  type Attachment,
  type Conversation,
  type Message,
} from '#shared/data/conversations.ts';
import { emailRepo, newReplyToken } from '#shared/data/email.ts';
import { emailKeys } from '#shared/data/keys.ts';
import { limitsRepo } from '#shared/data/limits.ts';
import { objectsRepo } from '#shared/data/objects.ts';
import { statsRepo, utcDay } from '#shared/data/stats.ts';
import { tenantsRepo, type Tenant } from '#shared/data/tenants.ts';
import { retrying, TxConditionFailed, type TxItem } from '#shared/data/tx.ts';
import { commit, openTicket, reopenTicket } from '#shared/domain/handoff/ticket-opening.ts';
import { events } from '#shared/domain/events.ts';
import { isActive } from '#shared/domain/handoff/tickets-rules.ts';
import { emailSettings } from '#shared/domain/tenants/email-config.ts';
import { HTML_MAX_BYTES, MalformedEmail, OverLimit, parseEmail, type ParsedEmail } from './parse.ts';
import { autoAnswer } from './auto-reply.ts';
import { bounceRefusal } from './bounce.ts';
import { clock, newId } from '#shared/core/clock.ts';

// An inbound email, from SES (receipt rule -> S3 -> functions/email/receive.ts) or from the local
// SMTP server (which calls that same function): the recipient names the tenant (`<slug>@<domain>`)
// and maybe the conversation (`<slug>+<token>@<domain>`); a reply is also found by its
// In-Reply-To/References. Every refusal is an outcome with an SMTP code, so the local server
// answers it and the AWS path logs it; nothing of a refused message is written.

export const EMAIL_LIMITS = {
  /** The SMTP SIZE the local server announces; SES takes up to 40 MB, and the function refuses above this. */
  messageBytes: 25 * 1024 * 1024,
  attachments: 20,
  attachmentBytes: 10 * 1024 * 1024,
  /** Recipients of one message, as SES takes them (the local server answers 452 to more). */
  recipients: 50,
  /** The HTML converted to text when a message has no text part. */
  htmlBytes: HTML_MAX_BYTES,
  /** Messages one sender may send one tenant in an hour, beside the tenant's `inboundPerHour`. */
  inboundPerSenderHour: 20,
  /** Automatic answers to one sender in an hour, whatever the tenant's settings. */
  autoRepliesPerSenderHour: 3,
} as const;

/** The limit window counting one sender's automatic answers (erasure deletes it with the address). */
export const autoReplyWindow = (from: string) => `autoreply#${from}`;
/** The limit window counting one sender's messages to a tenant (erasure deletes it with the address). */
export const senderWindow = (from: string) => `emailfrom#${from}`;

const SYSTEM: Actor = { type: 'system', id: 'email' };
const HOUR = 3600;

export interface Verdicts {
  spf: string;
  dkim: string;
  dmarc: string;
}
/**
 * `envelopeFrom`: the SMTP `MAIL FROM` (SES's `mail.source`); '' for the null reverse-path `<>`.
 * `bounce`: nobody answers the SMTP dialogue with the outcome (SES invoked the function as an
 * Event, after its 250), so a refusal for a cap is answered by a bounce mail.
 */
export interface InboundMail {
  rawKey: string;
  raw: Buffer;
  recipients: string[];
  verdicts: Verdicts;
  envelopeFrom?: string;
  bounce?: boolean;
}
export type InboundOutcome =
  | { accepted: true; tenantId: string; conversationId: string; messageId: string; duplicate: boolean }
  | { accepted: false; code: number; reason: string };

const refuse = (code: number, reason: string): InboundOutcome => ({ accepted: false, code, reason });

/** `<slug>@<domain>` or `<slug>+<token>@<domain>`, on the configured inbound domain only. */
export function parseRecipient(address: string): { slug: string; token: string | null } | null {
  const m = /^([a-z0-9-]{1,40})(?:\+([a-z0-9]{1,64}))?@([^@\s]+)$/.exec(address.trim().toLowerCase());
  if (!m || m[3] !== config.inboundDomain) return null;
  return { slug: m[1]!, token: m[2] ?? null };
}

/** The tenant an address reaches, or null (the SMTP server refuses it at RCPT). */
export async function recipientTenant(address: string): Promise<{ tenantId: string; token: string | null } | null> {
  const r = parseRecipient(address);
  if (!r) return null;
  const tenantId = await tenantsRepo.tenantOfSlug(r.slug);
  return tenantId ? { tenantId, token: r.token } : null;
}

const passes = (v: Verdicts) => [v.spf, v.dkim, v.dmarc].every((x) => x.toUpperCase() === 'PASS');
/** SES's verdicts as a message keeps them: `pass`, `fail`, `gray`, `processing_failed`... */
const verdictsOf = (v: Verdicts) => ({
  spf: v.spf.toLowerCase(),
  dkim: v.dkim.toLowerCase(),
  dmarc: v.dmarc.toLowerCase(),
});

/** The conversation this message continues, if any: its reply token, or its references from the same sender. */
async function threadOf(tenantId: string, token: string | null, mail: ParsedEmail): Promise<Conversation | null> {
  const byToken = token ? await emailRepo.conversationOfToken(tenantId, token) : null;
  const id = byToken ?? (await emailRepo.threadOf(tenantId, mail.refs));
  if (!id) return null;
  const c = await conversationsRepo.get(tenantId, id, true);
  if (!c || c.status === 'closed') return null;
  // References are not secret (any recipient of the thread has them): only the customer continues by them.
  if (!byToken && c.email?.customer !== mail.from) return null;
  return c;
}

/** Stores the attachments; their keys are returned so a failed write can remove them again. */
async function storeAttachments(tenantId: string, conversationId: string, mail: ParsedEmail): Promise<Attachment[]> {
  return Promise.all(
    mail.attachments.map(async (a) => {
      const id = newId();
      const key = emailKeys.attachmentObject(tenantId, conversationId, id);
      await objectsRepo.put(key, a.content, a.contentType);
      return { id, name: a.name, contentType: a.contentType, size: a.content.length, key };
    }),
  );
}

/**
 * The tenants a message reaches, once each (at most EMAIL_LIMITS.recipients addresses read, as SES
 * takes no more): for a tenant named twice, the address that names a conversation wins.
 */
async function targetsOf(recipients: string[]) {
  const found = await Promise.all(recipients.slice(0, EMAIL_LIMITS.recipients).map(recipientTenant));
  const byTenant = new Map<string, { tenantId: string; token: string | null }>();
  for (const t of found) if (t && !byTenant.get(t.tenantId)?.token) byTenant.set(t.tenantId, t);
  return [...byTenant.values()];
}

/**
 * One outcome for the message, as the SMTP answer to DATA is one: a temporary refusal of any
 * tenant first (the sender sends again; the tenants that took it see the same Message-ID and keep
 * it once), then the first acceptance, then the first refusal.
 */
const overall = (list: InboundOutcome[]) =>
  list.find((o) => !o.accepted && o.code < 500) ?? list.find((o) => o.accepted) ?? list[0]!;

export async function receiveEmail(input: InboundMail): Promise<InboundOutcome> {
  const targets = await targetsOf(input.recipients);
  const outcome = await receive(input, targets);
  if (!outcome.accepted && input.bounce && targets.length && input.envelopeFrom) {
    await bounceRefusal({
      tenantId: targets[0]!.tenantId,
      to: input.envelopeFrom,
      recipients: input.recipients.slice(0, 5),
      code: outcome.code,
      reason: outcome.reason,
    }).catch((e: unknown) => logger.error('bounce not sent', { error: (e as Error).message }));
  }
  return outcome;
}

async function receive(
  input: InboundMail,
  targets: Array<{ tenantId: string; token: string | null }>,
): Promise<InboundOutcome> {
  if (!targets.length) return refuse(550, '5.1.1 no such mailbox');
  if (input.raw.length > EMAIL_LIMITS.messageBytes)
    return refuse(552, `5.3.4 a message may be at most ${EMAIL_LIMITS.messageBytes} bytes`);
  let mail: ParsedEmail;
  try {
    mail = await parseEmail(input.raw);
  } catch (e) {
    if (e instanceof MalformedEmail) return refuse(550, `5.6.0 ${e.message}`);
    if (e instanceof OverLimit) return refuse(552, `5.3.4 ${e.message}`);
    throw e;
  }
  if (mail.attachments.length > EMAIL_LIMITS.attachments)
    return refuse(552, `5.3.4 a message may carry at most ${EMAIL_LIMITS.attachments} attachments`);
  if (mail.attachments.some((a) => a.content.length > EMAIL_LIMITS.attachmentBytes)) {
    return refuse(552, `5.3.4 an attachment may be at most ${EMAIL_LIMITS.attachmentBytes} bytes`);
  }
  // Mail "from" an inbound address is either our own reply come back (a loop) or forged to look
  // like another tenant: neither becomes a conversation.
  if (mail.loop) return refuse(554, '5.4.6 mail loop: this message was sent by this service');
  if (mail.from.endsWith(`@${config.inboundDomain}`))
    return refuse(550, '5.7.1 mail from an inbound address of this service is refused');
  // RFC 3834: mail sent with a null reverse-path (`MAIL FROM:<>`) is never answered automatically.
  const nullSender = input.envelopeFrom !== undefined && ['', '<>'].includes(input.envelopeFrom.trim());
  const read = nullSender ? { ...mail, automatic: true } : mail;
  // A mail to several tenants reaches each, as its own conversation there.
  const outcomes: InboundOutcome[] = [];
  for (const target of targets) {
    const own = targets.length > 1 ? { ...input, rawKey: emailKeys.inboundCopy(target.tenantId, input.rawKey) } : input;
    if (own !== input) await objectsRepo.put(own.rawKey, input.raw, 'message/rfc822');
    const outcome = await deliver(target, read, own);
    if (!outcome.accepted && own !== input) await objectsRepo.remove([own.rawKey]).catch(() => undefined);
    outcomes.push(outcome);
  }
  return overall(outcomes);
}

async function deliver(
  target: { tenantId: string; token: string | null },
  mail: ParsedEmail,
  input: InboundMail,
): Promise<InboundOutcome> {
  const tenant = await tenantsRepo.get(target.tenantId);
  // A deletion asked for between RCPT and here: refused as the lookup refuses it from now on.
  if (!tenant || tenant.deletingSince) return refuse(550, '5.1.1 no such mailbox');
  const settings = emailSettings(tenant.config ?? {});
  if (settings.fromAddress && mail.from === settings.fromAddress.toLowerCase()) {
    return refuse(554, "5.4.6 mail loop: the message comes from the team's own sending address");
  }
  return write(tenant, target.token, mail, input);
}

/** A new email thread's conversation, its customer the sender. */
function newThread(tenant: Tenant, mail: ParsedEmail, verified: boolean, now: string): Conversation {
  return {
    id: newId(),
    tenantId: tenant.id,
    status: 'active',
    createdAt: now,
    updatedAt: now,
    channel: 'email',
    subject: mail.subject || '(no subject)',
    email: { customer: mail.from, token: newReplyToken() },
    visitor: { userId: null, name: mail.fromName, email: mail.from, verified, emailVerified: verified },
    messageCount: 0,
    userMessageCount: 0,
    lastMessagePreview: '',
    lastIntent: null,
    unclosedTickets: 0,
  };
}

/** The customer's message as stored: the mail's text and what the team needs to trust it. */
function mailMessage(
  mail: ParsedEmail,
  input: InboundMail,
  messageKey: string,
  stored: Attachment[],
  now: string,
): Message {
  const verified = passes(input.verdicts);
  return {
    id: newId(),
    role: 'user',
    content: mail.text || '(no text)',
    createdAt: now,
    email: {
      messageId: messageKey,
      from: mail.from,
      subject: mail.subject,
      rawKey: input.rawKey,
      trimmed: mail.trimmed,
      automatic: mail.automatic,
      verified,
      verdicts: verdictsOf(input.verdicts),
    },
    ...(stored.length ? { attachments: stored } : {}),
  };
}

/** What answers a message that no active ticket holds: the assistant (an article) or a new ticket. */
interface Answering {
  items: TxItem[];
  set: Partial<Conversation>;
  opened: { release(): Promise<void> } | null;
  newTicket: boolean;
  answered: boolean;
  autoCounter: TxItem | null;
}

/**
 * A new thread (or a reply after the assistant answered): the assistant may answer from an article,
 * once in a while per sender; otherwise the team gets a ticket.
 */
async function answerOrTicket(
  tenant: Tenant,
  conv: Conversation,
  set: Partial<Conversation>,
  message: Message,
  mail: ParsedEmail,
  opts: { tryAutoReply: boolean; nowDate: Date },
): Promise<Answering> {
  const now = opts.nowDate.toISOString();
  const answer = opts.tryAutoReply ? await autoAnswer(tenant, mail.subject, message.content) : null;
  if (answer) {
    const autoCounter = limitsRepo.tx.countInWindow(
      tenant.id,
      autoReplyWindow(mail.from),
      opts.nowDate,
      HOUR,
      EMAIL_LIMITS.autoRepliesPerSenderHour,
    );
    const reply: Message = {
      id: newId(),
      role: 'assistant',
      content: answer.content,
      createdAt: now,
      metadata: answer.metadata,
    };
    return {
      items: [
        autoCounter,
        conversationsRepo.tx.message(tenant.id, conv.id, reply, 1),
        events.messageCreated(conv, reply),
        emailRepo.tx.delivery(tenant.id, conv.id, reply.id, mail.from, now),
        events.emailSend(conv, reply.id, now),
      ],
      set: { ...set, lastIntent: answer.metadata.intentDetected },
      opened: null,
      newTicket: false,
      answered: true,
      autoCounter,
    };
  }
  const t = await openTicket(
    tenant,
    { ...conv, ...set },
    `Email: ${preview(mail.subject || message.content)}`,
    now,
    SYSTEM,
  );
  return { items: t.items, set: { ...set, ...t.set }, opened: t, newTicket: true, answered: false, autoCounter: null };
}

/** The transaction's items that a refusal is read from, by their place. */
const REF = 0;
const FLOOD = 1;
const SENDER = 2;

function write(tenant: Tenant, token: string | null, mail: ParsedEmail, input: InboundMail): Promise<InboundOutcome> {
  const settings = emailSettings(tenant.config ?? {});
  const verified = passes(input.verdicts);
  // Without a Message-ID the stored object's key stands in, so a redelivered event is still seen as one.
  const messageKey = mail.messageId || `<${input.rawKey.replace(/[^\w.-]/g, '_')}@${config.inboundDomain}>`;
  let tryAutoReply = settings.autoReply === 'knowledge' && !mail.automatic;
  let stored: Attachment[] = [];
  const dropStored = () => objectsRepo.remove(stored.map((a) => a.key)).catch(() => undefined);

  return retrying(
    async () => {
      const read = await threadOf(tenant.id, token, mail);
      const nowDate = clock.date();
      const now = nowDate.toISOString();
      const conv: Conversation = read ?? newThread(tenant, mail, verified, now);
      if (!stored.length && mail.attachments.length) stored = await storeAttachments(tenant.id, conv.id, mail);
      const message = mailMessage(mail, input, messageKey, stored, now);
      const items: TxItem[] = [
        emailRepo.tx.thread(tenant.id, messageKey, conv.id, now),
        limitsRepo.tx.countInWindow(tenant.id, 'email-in', nowDate, HOUR, settings.inboundPerHour),
        // One sender cannot use the tenant's whole hour up: the others' mail still comes in.
        limitsRepo.tx.countInWindow(
          tenant.id,
          senderWindow(mail.from),
          nowDate,
          HOUR,
          EMAIL_LIMITS.inboundPerSenderHour,
        ),
        conversationsRepo.tx.message(tenant.id, conv.id, message, 0),
        events.messageCreated(conv, message),
        events.emailReceived(conv, message, mail.from, verified),
      ];
      let set: Partial<Conversation> = { updatedAt: now, lastMessagePreview: preview(message.content) };
      let outcome: Answering = { items: [], set, opened: null, newTicket: false, answered: false, autoCounter: null };

      const reopen = read ? await reopenTicket(tenant, conv, now, SYSTEM) : null;
      if (reopen?.stale) throw new TxConditionFailed([]);
      if (reopen) {
        items.push(...reopen.items);
        set = { ...set, ...reopen.set };
      }
      const active = conv.latestTicketId && (reopen || (conv.latestTicketStatus && isActive(conv.latestTicketStatus)));
      outcome = active
        ? { ...outcome, set }
        : await answerOrTicket(tenant, conv, set, message, mail, { tryAutoReply: tryAutoReply && !read, nowDate });
      items.push(...outcome.items);
      set = outcome.set;
      const { opened, newTicket, answered, autoCounter } = outcome;
      const added = { messageCount: answered ? 2 : 1, userMessageCount: 1, unclosedTickets: newTicket ? 1 : 0 };
      if (read) items.unshift(conversationsRepo.tx.update(read, set, added));
      else
        items.unshift(
          conversationsRepo.tx.put({ ...conv, ...set, ...added }),
          emailRepo.tx.token(tenant.id, conv.email!.token, conv.id),
        );
      const shift = read ? 1 : 2;
      if (!read) items.push(events.conversationCreated({ ...conv, ...set }, now));
      items.push(
        statsRepo.tx.addDay(tenant.id, utcDay(now), conv.id, {
          messages: 1,
          conversations: read ? 0 : 1,
          escalations: newTicket ? 1 : 0,
        }),
      );
      // The sender is found by their address for export and erasure, as a widget visitor who gave it.
      items.push(customersRepo.tx.link(tenant.id, mail.from, conv.id));
      try {
        await commit(items, opened);
      } catch (e) {
        const failed = e instanceof TxConditionFailed ? e.failed : [];
        if (failed[REF + shift]) {
          // The same message again (SES delivers at least once, a sender may retry): it is there already.
          if (!read) await dropStored();
          const first = await emailRepo.threadOf(tenant.id, [messageKey]);
          return {
            accepted: true,
            tenantId: tenant.id,
            conversationId: first ?? conv.id,
            messageId: message.id,
            duplicate: true,
          };
        }
        if (failed[SENDER + shift]) {
          await dropStored();
          return refuse(
            451,
            `4.7.1 this inbox takes at most ${EMAIL_LIMITS.inboundPerSenderHour} messages an hour from one sender; try again later`,
          );
        }
        if (failed[FLOOD + shift]) {
          await dropStored();
          return refuse(
            451,
            `4.7.1 this inbox takes at most ${settings.inboundPerHour} messages an hour; try again later`,
          );
        }
        // The sender has had their automatic answers this hour: the team answers instead.
        if (autoCounter && failed[items.indexOf(autoCounter)]) tryAutoReply = false;
        // A new conversation's attachments were stored under its id; a retry makes a new one.
        if (!read) {
          await dropStored();
          stored = [];
        }
        throw e;
      }
      logger.info('email received', {
        tenantId: tenant.id,
        conversationId: conv.id,
        newConversation: !read,
        ticket: newTicket,
        answered,
      });
      return {
        accepted: true as const,
        tenantId: tenant.id,
        conversationId: conv.id,
        messageId: message.id,
        duplicate: false,
      };
    },
    { attempts: 6, conflict: 'the conversation changed concurrently' },
  );
}
