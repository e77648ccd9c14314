import { SendEmailCommand, SESv2Client } from '@aws-sdk/client-sesv2';
import { Marked } from 'marked';
import { createTransport, type Transporter } from 'nodemailer';
import { config } from '#shared/core/config.ts';
import { logger } from '#shared/core/log.ts';
import { conversationsRepo, type Conversation, type Message } from '#shared/data/conversations.ts';
import { emailRepo } from '#shared/data/email.ts';
import { parseEmailMessage, type InvitationEmail, type ReplyEmail } from '#shared/data/delivery-queue.ts';
import { membersRepo } from '#shared/data/members.ts';
import { tenantsRepo } from '#shared/data/tenants.ts';
import { transact, TxConditionFailed } from '#shared/data/tx.ts';
import { emailSettings } from '#shared/domain/tenants/email-config.ts';
import { inboundAddress, replyAddress } from '#shared/domain/tenants/slug.ts';
import { settleDelivery } from './delivery-events.ts';
import { LOOP_HEADER, oneLine } from './parse.ts';
import { clock } from '#shared/core/clock.ts';

// Outgoing email: the sender function takes one queued message (an agent's reply, or the
// assistant's automatic answer) and sends it, threaded, through nodemailer: SES v2 SendEmail in AWS,
// SMTP to the local catcher under the local runtime. nodemailer builds the MIME (headers encoded,
// never concatenated by us), so a name or subject cannot inject a header.

let transport: Transporter | undefined;
const mailer = () =>
  (transport ??= config.smtpRelay
    ? createTransport({
        host: config.smtpRelay.split(':')[0],
        port: Number(config.smtpRelay.split(':')[1]),
        secure: false,
        ignoreTLS: true,
      })
    : createTransport({ SES: { sesClient: new SESv2Client({ region: config.region }), SendEmailCommand } }));

const escapeHtml = (s: string) => s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
/** The only link schemes a reply's HTML carries; any other link (javascript:, data:, relative...) is its words alone. */
const SAFE_LINK = /^(https?|mailto):/i;
const SAFE_IMAGE = /^https?:/i;
const md = new Marked({ gfm: true, breaks: true }).use({
  renderer: {
    // `false`: marked's own rendering, for an allowed address.
    link(token) {
      return SAFE_LINK.test(token.href.trim()) ? false : this.parser.parseInline(token.tokens);
    },
    image(token) {
      return SAFE_IMAGE.test(token.href.trim()) ? false : escapeHtml(token.text);
    },
  },
});
/** The reply's Markdown as HTML; the text is escaped first, so HTML the agent typed is shown, not run. */
export const htmlOf = (text: string) =>
  `<!doctype html><html><body style="font-family:sans-serif;line-height:1.5">${md.parse(escapeHtml(text)) as string}</body></html>`;

/** A notice of the service's own (a refused message's bounce): marked as automatic and as ours, so it is never answered or looped. */
export async function sendNotice(m: { from: string; to: string; subject: string; text: string }): Promise<void> {
  await mailer().sendMail({ ...m, headers: { [LOOP_HEADER]: '1', 'Auto-Submitted': 'auto-replied' } });
}

/** `Re: <subject> [#12]`: the ticket number in the subject, as support tools do, once. */
export function replySubject(c: Pick<Conversation, 'subject' | 'latestTicketNumber'>) {
  const base = oneLine(c.subject ?? '', 200) || 'Your message';
  const re = /^re:/i.test(base) ? base : `Re: ${base}`;
  const n = c.latestTicketNumber;
  return n === undefined || re.includes(`[#${n}]`) ? re : `${re} [#${n}]`;
}

/** SES tags allow letters, digits, `_`, `-`, `.`, `@`: our ids fit. */
const tags = (m: ReplyEmail) => ({ tenant: m.tenantId, conversation: m.conversationId, message: m.messageId });

/** SES v2 errors that say "later", not "never": the queue retries them (as any 5xx or network error). */
const SES_TRANSIENT = new Set([
  'TooManyRequestsException',
  'LimitExceededException',
  'ThrottlingException',
  'ServiceUnavailable',
  'InternalFailure',
]);

interface SendError {
  name?: string;
  message?: string;
  $fault?: 'client' | 'server';
  $metadata?: { httpStatusCode?: number };
  responseCode?: number;
  command?: string;
  response?: string;
}

/**
 * What a refused send means for the message, or null when it is worth trying again (thrown on, so
 * the queue retries). SES's SendEmail answers by exception name (`MessageRejected`,
 * `MailFromDomainNotVerifiedException`, `SendingPausedException`...: `failed`); an SMTP relay by
 * reply code: a recipient refused with 5xx at RCPT is a hard bounce (`bounced`), a 5xx elsewhere
 * `failed`, a 4xx later. The recipient's address is left out of the reason kept.
 */
export function refusalOf(e: unknown, to: string): { status: 'bounced' | 'failed'; reason: string } | null {
  const err = (e ?? {}) as SendError;
  const reason = (text: string) => oneLine(text.split(to).join('the recipient'), 300);
  if (err.$metadata) {
    const code = err.$metadata.httpStatusCode ?? 500;
    if (err.$fault === 'server' || code >= 500 || code === 429 || SES_TRANSIENT.has(err.name ?? '')) return null;
    return {
      status: 'failed',
      reason: reason(`SES refused the message: ${err.name ?? 'Error'}: ${err.message ?? ''}`),
    };
  }
  if (typeof err.responseCode === 'number' && err.responseCode >= 500) {
    const said = reason(err.response ?? err.message ?? '');
    return err.command === 'RCPT TO'
      ? { status: 'bounced', reason: `the recipient was refused: ${said}` }
      : { status: 'failed', reason: `the mail server refused the message: ${said}` };
  }
  return null;
}

export async function sendQueuedEmail(m: ReplyEmail): Promise<'sent' | 'skipped' | 'bounced' | 'failed'> {
  const found = await conversationsRepo.load(m.tenantId, m.conversationId);
  const msg = found?.messages.find((x) => x.id === m.messageId);
  // An email conversation, or a widget one whose customer left an address and was away (shared/domain/handoff).
  if (!found || !msg || !found.conversation.email) return 'skipped';
  // At least once: a message already past `sending` was sent by an earlier receive.
  if (found.deliveries.get(msg.id)?.status !== 'sending') return 'skipped';
  const conv = found.conversation;
  const tenant = await tenantsRepo.get(m.tenantId);
  if (!tenant?.slug) return 'skipped';
  const to = conv.email!.customer;
  const now = () => clock.iso();
  if (await emailRepo.isSuppressed(tenant.id, to)) {
    await emailRepo.setDelivery(tenant.id, conv.id, msg.id, 'bounced', now());
    return 'skipped';
  }
  const ids = found.messages.flatMap((x: Message) => (x.email?.messageId ? [x.email.messageId] : []));
  const lastInbound = [...found.messages].reverse().find((x) => x.role === 'user' && x.email?.messageId)
    ?.email?.messageId;
  const settings = emailSettings(tenant.config ?? {});
  const fromName = oneLine(msg.author ? `${msg.author.name} (${tenant.name})` : tenant.name, 120);
  const t = tags(m);
  let info: { messageId: string };
  try {
    info = await mailer().sendMail({
      from: { name: fromName, address: settings.fromAddress ?? inboundAddress(tenant.slug) },
      to,
      replyTo: replyAddress(tenant.slug, conv.email!.token),
      subject: replySubject(conv),
      text: msg.content,
      html: htmlOf(msg.content),
      ...(lastInbound ? { inReplyTo: lastInbound } : {}),
      ...(ids.length ? { references: ids.slice(-10) } : {}),
      headers: {
        [LOOP_HEADER]: '1',
        ...(msg.role === 'assistant' ? { 'Auto-Submitted': 'auto-replied' } : {}),
        // SES's SMTP interface reads these; the local catcher reads them the same way for its events.
        'X-SES-MESSAGE-TAGS': Object.entries(t)
          .map(([k, v]) => `${k}=${v}`)
          .join(', '),
        ...(config.sesConfigurationSet ? { 'X-SES-CONFIGURATION-SET': config.sesConfigurationSet } : {}),
      },
      ses: {
        EmailTags: Object.entries(t).map(([Name, Value]) => ({ Name, Value })),
        ...(config.sesConfigurationSet ? { ConfigurationSetName: config.sesConfigurationSet } : {}),
      },
    });
  } catch (e) {
    const refused = refusalOf(e, to);
    if (!refused) throw e;
    // Accepted by us, refused by SES: the message gets its final status (a bounce also suppresses
    // the address and emits email.bounced); retrying would be refused the same way.
    await settleDelivery(
      { tenantId: tenant.id, conversationId: conv.id, messageId: msg.id },
      refused.status,
      refused.status === 'bounced' ? [to] : [],
      refused.reason,
    );
    logger.warn('email refused', {
      tenantId: tenant.id,
      conversationId: conv.id,
      messageId: msg.id,
      status: refused.status,
      reason: refused.reason,
    });
    return refused.status;
  }
  const at = now();
  await emailRepo.setDelivery(tenant.id, conv.id, msg.id, 'sent', at);
  // The customer's answer names the Message-ID as sent (SES sets its own): it threads by it.
  try {
    await transact([emailRepo.tx.thread(tenant.id, info.messageId, conv.id, at)]);
  } catch (e) {
    if (!(e instanceof TxConditionFailed)) throw e;
  }
  logger.info('email sent', { tenantId: tenant.id, conversationId: conv.id, messageId: msg.id });
  return 'sent';
}

/**
 * A member's invitation: from the tenant at its sending address, with the link to sign in (the
 * invited address joins on its first sign-in). An invitation revoked or accepted before it is
 * sent is not sent. A refusal is logged and dropped (the owner sees the member still invited and
 * can tell them another way); "later" is retried by the queue, as for replies.
 */
export async function sendInvitation(m: InvitationEmail): Promise<'sent' | 'skipped' | 'failed'> {
  const [tenant, member] = await Promise.all([
    tenantsRepo.get(m.tenantId),
    membersRepo.get(m.tenantId, m.invitationId),
  ]);
  if (!tenant?.slug || member?.status !== 'invited' || !member.email) return 'skipped';
  const link = `${(config.dashboardUrl ?? '').replace(/\/+$/, '')}/`;
  const team = oneLine(tenant.name, 100);
  const text = [
    `You have been invited to answer ${team}'s customers, as ${member.role === 'agent' ? 'an agent' : `an ${member.role}`}.`,
    '',
    `Sign in with this address (${member.email}) to join: ${link}`,
    '',
    'If you did not expect this, ignore this email: nothing happens until you sign in.',
  ].join('\n');
  try {
    await mailer().sendMail({
      from: { name: team, address: emailSettings(tenant.config ?? {}).fromAddress ?? inboundAddress(tenant.slug) },
      to: member.email,
      subject: `You're invited to join ${team}`,
      text,
      html: htmlOf(text),
      headers: {
        [LOOP_HEADER]: '1',
        'Auto-Submitted': 'auto-generated',
        ...(config.sesConfigurationSet ? { 'X-SES-CONFIGURATION-SET': config.sesConfigurationSet } : {}),
      },
      ses: {
        EmailTags: [{ Name: 'tenant', Value: tenant.id }],
        ...(config.sesConfigurationSet ? { ConfigurationSetName: config.sesConfigurationSet } : {}),
      },
    });
  } catch (e) {
    const refused = refusalOf(e, member.email);
    if (!refused) throw e;
    logger.warn('invitation email refused', { tenantId: tenant.id, memberId: member.id, reason: refused.reason });
    return 'failed';
  }
  logger.info('invitation email sent', { tenantId: tenant.id, memberId: member.id });
  return 'sent';
}

/** A queue record's body: a malformed one is dropped (logged), never retried. */
export async function sendFromQueue(body: string) {
  const m = parseEmailMessage(body);
  if (!m) {
    logger.warn('email queue message is malformed; dropped');
    return 'skipped';
  }
  return 'invitationId' in m ? sendInvitation(m) : sendQueuedEmail(m);
}
