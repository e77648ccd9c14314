import { randomBytes } from 'node:crypto';
import { createServer } from 'node:http';
import WebSocket from 'ws';
import { createTransport } from 'nodemailer';
import type { LocalRuntime } from '../../../local/runtime.ts';
import { connectDemoOrders, seedDemoContent } from '../../../local/demo/seed.ts';
import { answerOrderStatus, ORDER_STATUS_PATH } from '../../../local/demo/orders.ts';
import { LIVE_PATH } from '#shared/edge/triggers.ts';
import type { Meter } from './meter.ts';

// A support team's day on the demo shop (its help centre and the starter intents), through the
// local runtime's HTTP, WebSocket and SMTP doors as the widget, the dashboard and mail clients
// use them. Of every ten conversations one is an email thread; of the widget's, one in ten asks
// for a person, who answers twice and resolves the ticket; the others ask for an order's status,
// which the demo's `order_status` looks up by its action, a signed call to the shop's order
// endpoint (the demo's, answering after `shopMs`). Every event also goes to a webhook.

export interface DayShape {
  conversations: number;
  /** Share of widget conversations handed to a person. */
  handover: number;
  /** Share of all conversations that are email threads. */
  email: number;
  /** How long the shop's order endpoint takes to answer an action's call. */
  shopMs: number;
}

export interface DayFacts {
  conversations: number;
  widget: number;
  handedOver: number;
  emailThreads: number;
  /** Widget conversations the assistant closed alone. */
  resolvedByAssistant: number;
  customerMessages: number;
  agentReplies: number;
  /** The order questions answered by the action's call to the shop (its outcome in `metadata.action`). */
  actionCalls: number;
  socketFramesOut: number;
  webhookDeliveries: number;
  mailIn: number;
  mailInBytes: number;
  mailOut: number;
  queueOps: { send: number; changeVisibility: number; delete: number; fifoSend: number };
}

const GREETINGS = ['hi there', 'hello', 'good morning, can you help me', 'hey, I have a question'];
const QUESTIONS = [
  'how long does shipping take',
  'how much does delivery cost to Canada',
  'can I return something I bought',
  'how do I exchange an item for another size',
  'do you accept paypal',
  'which payment methods can I use',
  'I forgot my password',
  'how do I reset my password',
  'how do loyalty points work',
  'can you gift wrap my order',
];
// The demo shop's orders, and one it does not have (the shop's own "not found" reply).
const ORDERS = [
  'where is my order 12345',
  'has order 55321 shipped yet',
  'status of order number 10482',
  'when will order 7731 arrive',
];
const CLOSINGS = ['thanks, bye', 'great, thank you', "that's all, bye", 'thanks a lot'];

const pick = <T>(xs: readonly T[], i: number) => xs[i % xs.length]!;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

export async function runDay(
  rt: LocalRuntime,
  meter: Meter,
  shape: DayShape,
  log: (m: string) => void,
): Promise<DayFacts> {
  // ---- setup, not metered: the team, its content, its webhook, its agent's dashboard -----------
  let webhookDeliveries = 0;
  const receiver = createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      webhookDeliveries++;
      res.writeHead(204).end();
    });
  });
  await new Promise<void>((r) => receiver.listen(0, '127.0.0.1', r));
  const hookPort = (receiver.address() as { port: number }).port;
  const shopSecret = `whsec_${randomBytes(32).toString('base64')}`;
  const shop = createServer((req, res) => {
    setTimeout(() => void answerOrderStatus(req, res, shopSecret), shape.shopMs);
  });
  await new Promise<void>((r) => shop.listen(0, '127.0.0.1', r));
  const shopPort = (shop.address() as { port: number }).port;

  const sub = `cost-${Date.now()}`;
  const token = await rt.idp.token({ sub, email: `${sub}@shop.example` });
  const http = async (method: string, path: string, body?: unknown, headers: Record<string, string> = {}) => {
    const send = () =>
      fetch(rt.url + path, {
        method,
        headers: { ...headers, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
        ...(body === undefined ? {} : { body: JSON.stringify(body) }),
      });
    // A 503 (DynamoDB Local slow to answer on a loaded machine) is sent again after its Retry-After, as a client would.
    let res = await send();
    for (let i = 0; i < 5 && res.status === 503; i++) {
      await res.text();
      await sleep(Number(res.headers.get('retry-after') ?? 1) * 1000);
      res = await send();
    }
    const text = await res.text();
    if (!res.ok) throw new Error(`${method} ${path}: ${res.status} ${text}`);
    return (text ? JSON.parse(text) : undefined) as any;
  };
  const admin = (method: string, path: string, body?: unknown) =>
    http(method, `/api/v1/admin${path}`, body, { authorization: `Bearer ${token}` });
  const onboarded = await admin('POST', '/auth/onboard', { tenantName: 'Demo Shop' });
  const widgetKey = onboarded.widgetKey as string;
  const chat = (method: string, path: string, body?: unknown) =>
    http(method, `/api/v1/chat${path}`, body, { 'x-widget-key': widgetKey });
  await seedDemoContent(rt.url, token);
  await connectDemoOrders(rt.url, token, `http://127.0.0.1:${shopPort}${ORDER_STATUS_PATH}`, shopSecret);
  log('demo content seeded; waiting for its index');
  await admin('PUT', '/settings', { config: { email: { inboundPerHour: 100_000 } } });
  const inbound = (await admin('GET', '/settings')).config.email.inboundAddress as string;
  await admin('POST', '/integrations', {
    type: 'webhook',
    name: 'Shop CRM',
    config: { url: `http://127.0.0.1:${hookPort}/hook` },
  });
  // The articles are embedded in the background; the day starts once the index is built.
  await rt.indexQueue.idle();
  // Warm-up: the first answer loads the encoder (a cold start, estimated separately from the measured init).
  await chat('POST', '/message', { message: 'hello' });
  log('index built, encoder loaded');

  const wsUrl = `${rt.url.replace(/^http/, 'ws')}${LIVE_PATH}`;
  let socketFramesOut = 0;
  const openSocket = (query: string) =>
    new Promise<WebSocket>((resolve, reject) => {
      const ws = new WebSocket(`${wsUrl}?${query}`);
      ws.on('message', () => {
        if (meter.on) socketFramesOut++;
      });
      ws.once('open', () => resolve(ws));
      ws.once('error', reject);
    });
  const agentTicket = (await admin('POST', '/live/tickets')).ticket as string;
  const agentSocket = await openSocket(`ticket=${encodeURIComponent(agentTicket)}`);
  const smtp = createTransport({
    host: '127.0.0.1',
    port: rt.mail!.smtpPort,
    secure: false,
    ignoreTLS: true,
    pool: true,
    maxConnections: 1,
  });
  const opsBefore = { delivery: rt.queue.ops.length, email: rt.emailQueue.ops.length, index: rt.indexQueue.ops.length };
  const mailOutBefore = rt.mail!.caught().length;

  // ---- the metered day ---------------------------------------------------------------------------
  await meter.start();
  const facts: DayFacts = {
    conversations: shape.conversations,
    widget: 0,
    handedOver: 0,
    emailThreads: 0,
    resolvedByAssistant: 0,
    customerMessages: 0,
    agentReplies: 0,
    actionCalls: 0,
    socketFramesOut: 0,
    webhookDeliveries: 0,
    mailIn: 0,
    mailInBytes: 0,
    mailOut: 0,
    queueOps: { send: 0, changeVisibility: 0, delete: 0, fifoSend: 0 },
  };
  const emailEvery = Math.round(1 / shape.email);
  const handoverEvery = Math.round(1 / shape.handover);
  const sendMail = async (to: string, subject: string, text: string) => {
    const raw = `From: customer@customer.example\r\nTo: ${to}\r\nSubject: ${subject}\r\n\r\n${text}`;
    facts.mailIn++;
    facts.mailInBytes += Buffer.byteLength(raw);
    await smtp.sendMail({
      from: 'customer@customer.example',
      to,
      subject,
      text,
      headers: { 'X-Local-Verdicts': 'spf=pass dkim=pass dmarc=pass' },
    });
  };
  const caughtNow = () => rt.mail!.caught().length;
  /** Waits for the n-th mail out (a shared machine can take seconds: the stream, the queue, the sender). */
  const untilMailOut = async (n: number) => {
    for (const deadline = Date.now() + 60_000; caughtNow() < n; ) {
      if (Date.now() > deadline) throw new Error(`mail ${n} never left`);
      await sleep(20);
    }
  };

  for (let c = 0; c < shape.conversations; c++) {
    if (c % 10 === 0) log(`conversation ${c + 1} of ${shape.conversations}`);
    if (c % emailEvery === emailEvery - 1) {
      // An email thread: the customer writes, an agent answers, the customer writes back, the agent answers.
      facts.emailThreads++;
      const subject = `Question about my order ${1000 + c}`;
      await sendMail(inbound, subject, `Hello, ${pick(QUESTIONS, c)}? Thanks, Sam`);
      let conversation: any;
      for (const deadline = Date.now() + 60_000; !conversation && Date.now() < deadline; ) {
        conversation = (await admin('GET', '/conversations?limit=5')).items.find((x: any) => x.subject === subject);
        if (!conversation) await sleep(20);
      }
      if (!conversation) throw new Error(`the email thread "${subject}" never arrived`);
      await admin('GET', `/conversations/${conversation.id}`);
      let sent = caughtNow();
      await admin('POST', `/conversations/${conversation.id}/messages`, {
        content: 'Thanks for writing. Here is what you asked about: see our help centre.',
      });
      facts.agentReplies++;
      await untilMailOut(++sent);
      const reply = rt.mail!.caught().at(-1)!;
      await sendMail(reply.replyTo || inbound, `Re: ${subject}`, 'Thanks, one more thing: can I pay by card?');
      await sleep(50);
      await admin('GET', `/conversations/${conversation.id}`);
      await admin('POST', `/conversations/${conversation.id}/messages`, { content: 'Yes, every major card.' });
      facts.agentReplies++;
      await untilMailOut(++sent);
      continue;
    }
    facts.widget++;
    await chat('GET', '/widget');
    const say = async (message: string, extra: Record<string, unknown> = {}) => {
      facts.customerMessages++;
      return chat('POST', '/message', { ...(conversationId ? { conversationId } : {}), message, ...extra });
    };
    let conversationId: string | undefined;
    const first = await say(pick(GREETINGS, c));
    conversationId = first.conversationId as string;
    const answered = await say(pick(QUESTIONS, c));
    if (c % 3 === 0 && answered.metadata.sources?.[0])
      await chat('GET', `/articles/${answered.metadata.sources[0].articleId}`);
    if (facts.widget % handoverEvery === 0) {
      // Handed over: the widget opens its socket, an agent reads the ticket, answers twice, resolves it.
      facts.handedOver++;
      const handed = await say('That does not help, I would like to talk to a person', { handover: true });
      const ticketId = handed.metadata.ticketId as string;
      const socket = await openSocket(`widgetKey=${encodeURIComponent(widgetKey)}&conversationId=${conversationId}`);
      await admin('GET', '/tickets?status=open');
      await admin('GET', `/tickets/${ticketId}`);
      await admin('PATCH', `/tickets/${ticketId}`, { status: 'in_progress' });
      await admin('POST', `/conversations/${conversationId}/messages`, {
        content: 'Hi, I am Alex from the shop. Let me look into it.',
      });
      await say('Thank you, it is about my last order');
      await admin('POST', `/conversations/${conversationId}/messages`, {
        content: 'It left our warehouse today; you will have it on Friday.',
      });
      facts.agentReplies += 2;
      await admin('PATCH', `/tickets/${ticketId}`, { status: 'resolved' });
      await chat('POST', `/conversations/${conversationId}/rating`, { score: 5 });
      await sleep(100);
      socket.close();
      continue;
    }
    const order = await say(pick(ORDERS, c));
    if (order.metadata.action) facts.actionCalls++;
    await say(pick(QUESTIONS, c + 3));
    await say(pick(CLOSINGS, c));
    facts.resolvedByAssistant++;
  }

  log('conversations done; waiting for the queues and the stream');
  // What the day set going settles: the stream, the queues, the mail, the webhook's deliveries.
  for (let quiet = 0, last = -1; quiet < 8; ) {
    await Promise.all([rt.queue.idle(), rt.emailQueue.idle(), rt.indexQueue.idle()]);
    const now = webhookDeliveries + caughtNow() + meter.invocations.length;
    quiet = now === last ? quiet + 1 : 0;
    last = now;
    await sleep(150);
  }
  meter.stop();
  const ops = (q: LocalRuntime['queue'], from: number) => q.ops.slice(from);
  const all = [
    ...ops(rt.queue, opsBefore.delivery),
    ...ops(rt.emailQueue, opsBefore.email),
    ...ops(rt.indexQueue, opsBefore.index),
  ];
  facts.queueOps = {
    send: all.filter((o) => o.op === 'send').length,
    changeVisibility: all.filter((o) => o.op === 'changeVisibility').length,
    delete: all.filter((o) => o.op === 'delete').length,
    fifoSend: ops(rt.queue, opsBefore.delivery).filter((o) => o.op === 'send').length,
  };
  facts.socketFramesOut = socketFramesOut;
  facts.webhookDeliveries = webhookDeliveries;
  facts.mailOut = caughtNow() - mailOutBefore;
  agentSocket.close();
  smtp.close();
  receiver.close();
  shop.close();
  return facts;
}
