import type { IncomingMessage, ServerResponse } from 'node:http';
import { Webhook, WebhookVerificationError } from 'standardwebhooks';

// The demo shop's order-status endpoint: what a team's own endpoint for an action looks like
// (docs/ACTIONS.md). It accepts only requests signed with the action's secret, then answers from
// its few orders: `data` for the intent's response to fill, or a `reply` of its own.

export const ORDER_STATUS_PATH = '/api/order-status';

/** The demo's orders, by number. */
export const DEMO_ORDERS: Record<string, { status: string; detail: string }> = {
  '12345': { status: 'shipped', detail: 'it left our roastery on Monday and should arrive by Thursday' },
  '10482': { status: 'being packed', detail: 'it will ship today before 2 pm' },
  '20931': { status: 'delivered', detail: 'it was left with your neighbour on Saturday at 11:40' },
  '55321': { status: 'delayed', detail: 'the courier expects to deliver it one day late' },
};

const MAX_BODY = 64 * 1024;
const normal = (id: string) =>
  id
    .replace(/^#/, '')
    .replace(/^[A-Za-z]+-?/, '')
    .toUpperCase();

/** The answer to one intent.action request: 401 unless signed with `secret`. */
export async function answerOrderStatus(req: IncomingMessage, res: ServerResponse, secret: string): Promise<void> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const c of req) {
    size += (c as Buffer).length;
    if (size > MAX_BODY) {
      res.writeHead(413);
      res.end();
      return;
    }
    chunks.push(c as Buffer);
  }
  const body = Buffer.concat(chunks).toString('utf8');
  let event: { type?: string; data?: { entities?: Record<string, string> } };
  try {
    event = new Webhook(secret).verify(body, req.headers as Record<string, string>) as typeof event;
  } catch (e) {
    res.writeHead(e instanceof WebhookVerificationError ? 401 : 400, { 'content-type': 'application/json' });
    res.end(JSON.stringify({ error: 'the signature does not verify' }));
    return;
  }
  const asked = event.data?.entities?.order_id ?? '';
  const order = DEMO_ORDERS[normal(asked)];
  res.writeHead(200, { 'content-type': 'application/json' });
  res.end(
    JSON.stringify(
      order
        ? { data: { order: { id: normal(asked), ...order } } }
        : {
            reply: `I couldn't find order ${asked || 'with that number'}. Please check the number in your confirmation email.`,
          },
    ),
  );
}
