// Slack incoming-webhook messages (Block Kit) for what a support team acts on: escalations and
// ticket status changes. Every other event is of no use in a channel and is never queued for Slack.

export const SLACK_EVENT_TYPES = ['conversation.escalated', 'ticket.updated'] as const;

/** Slack's incoming webhooks live under this prefix. */
export const SLACK_WEBHOOK_PREFIX = 'https://hooks.slack.com/';

type Obj = Record<string, unknown>;
/** The part of an event a Slack message is made from. */
interface SlackEvent {
  type: string;
  data: Obj;
}
const obj = (v: unknown): Obj => (v && typeof v === 'object' && !Array.isArray(v) ? (v as Obj) : {});
const str = (v: unknown, fallback = '') => (typeof v === 'string' ? v : fallback);

/** Slack's mrkdwn needs only these three escaped; text fields hold at most 3000 characters. */
const mrkdwn = (s: string, max = 500) => {
  const cut = [...s].length > max ? `${[...s].slice(0, max - 1).join('')}…` : s;
  return cut.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
};
const label = (s: string) => s.replace(/_/g, ' ');

/** Whether a Slack integration has anything to post for this event. */
export function slackWants(e: SlackEvent): boolean {
  if (e.type === 'ping' || e.type === 'conversation.escalated') return true;
  return e.type === 'ticket.updated' && obj(e.data.changes).status !== undefined;
}

export function conversationLink(dashboardUrl: string | undefined, conversationId: string): string | null {
  if (!dashboardUrl || !conversationId) return null;
  return `${dashboardUrl.replace(/\/+$/, '')}/conversations/${encodeURIComponent(conversationId)}`;
}

function message(title: string, fields: Array<[string, string]>, detail: string | null, link: string | null) {
  const blocks: Obj[] = [
    { type: 'header', text: { type: 'plain_text', text: title, emoji: true } },
    { type: 'section', fields: fields.map(([k, v]) => ({ type: 'mrkdwn', text: `*${k}*\n${mrkdwn(v, 200)}` })) },
  ];
  if (detail) blocks.push({ type: 'section', text: { type: 'mrkdwn', text: `>${mrkdwn(detail)}` } });
  if (link) {
    blocks.push({
      type: 'actions',
      elements: [
        {
          type: 'button',
          text: { type: 'plain_text', text: 'Open the conversation' },
          url: link,
          action_id: 'open_conversation',
        },
      ],
    });
  }
  // `text` is what notifications and screen readers show.
  const text = `${title}: ${fields.map(([k, v]) => `${k} ${v}`).join(', ')}${link ? ` ${link}` : ''}`;
  return { text, blocks };
}

/** The Slack message for an event, or null when the event is not one Slack is told about. */
export function slackMessage(e: SlackEvent, dashboardUrl: string | undefined): Obj | null {
  if (e.type === 'ping') {
    return message(
      'Test message',
      [['From', 'the support assistant']],
      'This integration is set up: escalations and ticket status changes will be posted here.',
      null,
    );
  }
  if (e.type === 'conversation.escalated') {
    const ticket = obj(e.data.ticket);
    const conversation = obj(e.data.conversation);
    const conversationId = str(conversation.id, str(ticket.conversationId));
    return message(
      'Conversation escalated',
      [
        ['Ticket', str(ticket.id, 'unknown')],
        ['Priority', label(str(ticket.priority, 'unknown'))],
      ],
      str(ticket.reason) || null,
      conversationLink(dashboardUrl, conversationId),
    );
  }
  if (e.type === 'ticket.updated') {
    const ticket = obj(e.data.ticket);
    const change = obj(obj(e.data.changes).status);
    if (change.to === undefined) return null;
    return message(
      `Ticket ${label(str(change.to))}`,
      [
        ['Ticket', str(ticket.id, 'unknown')],
        ['Status', `${label(str(change.from, '?'))} → ${label(str(change.to))}`],
        ['Priority', label(str(ticket.priority, 'unknown'))],
      ],
      null,
      conversationLink(dashboardUrl, str(ticket.conversationId)),
    );
  }
  return null;
}
