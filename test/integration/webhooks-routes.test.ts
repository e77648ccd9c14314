import { describe, expect, it } from 'vitest';
import { Webhook } from 'standardwebhooks';
import { fanOut } from '#shared/domain/events-out/deliveries.ts';
import { event, webhookFile } from './webhooks/harness.ts';
import { eventually } from '../support/eventually.ts';

// The delivery log and its controls (docs/API.md, Events and integrations), creation rules of webhook and Slack
// integrations, and the Slack messages, through the local runtime's HTTP server.

const w = webhookFile();
const { receiver, hook } = w;

const problem = (r: { status: number; body: any }, status: number, code: string) => {
  expect(r.status, JSON.stringify(r.body)).toBe(status);
  expect(r.body.code).toBe(code);
};

describe('creating integrations', () => {
  it('generates a webhook secret when none is given, shows it whole once, then only masked', async () => {
    const t = await w.a.tenant();
    const r = await w.a.call('POST', '/integrations', t.token, {
      type: 'webhook',
      name: 'H',
      config: { url: 'https://hooks.example.com/x' },
    });
    expect(r.status).toBe(201);
    const secret = r.body.credentials.secret as string;
    expect(secret).toMatch(/^whsec_[A-Za-z0-9+/]+={0,2}$/);
    expect(Buffer.from(secret.slice(6), 'base64')).toHaveLength(32);
    expect(() => new Webhook(secret)).not.toThrow();
    const list = await w.a.call('GET', '/integrations', t.token);
    expect(list.body.items[0].credentials).toEqual({ secret: `****${secret.slice(-4)}` });
    const audit = await w.a.call('GET', '/audit?category=integration', t.token);
    expect(list.text + audit.text).not.toContain(secret.slice(6));
    // A given secret is stored and shown masked, never echoed.
    const given = `whsec_${Buffer.alloc(24, 9).toString('base64')}`;
    const g = await w.a.call('POST', '/integrations', t.token, {
      type: 'webhook',
      name: 'G',
      config: { url: 'https://hooks.example.com/y' },
      credentials: { secret: given },
    });
    expect(g.body.credentials).toEqual({ secret: `****${given.slice(-4)}` });
  });

  it('refuses zendesk and email (not delivered yet), bad event lists and bad Slack URLs with 400, writing nothing', async () => {
    const t = await w.a.tenant();
    const cases: Array<[unknown, string]> = [
      [{ type: 'zendesk', name: 'Z', config: { subdomain: 'acme' }, credentials: { token: 'abcdefgh' } }, 'type'],
      [{ type: 'email', name: 'E', config: { to: 'ops@example.com' } }, 'type'],
      [
        { type: 'webhook', name: 'W', config: { url: 'https://hooks.example.com/', events: ['ticket.deleted'] } },
        'config.events',
      ],
      [{ type: 'webhook', name: 'W', config: { url: 'https://hooks.example.com/', events: [] } }, 'config.events'],
      [
        { type: 'webhook', name: 'W', config: { url: 'https://hooks.example.com/', events: 'ticket.created' } },
        'config.events',
      ],
      [{ type: 'slack', name: 'S', config: {} }, 'credentials.webhookUrl'],
      [
        { type: 'slack', name: 'S', credentials: { webhookUrl: 'https://evil.example.com/services/x' } },
        'credentials.webhookUrl',
      ],
      [
        { type: 'slack', name: 'S', credentials: { webhookUrl: 'http://hooks.slack.com/services/x' } },
        'credentials.webhookUrl',
      ],
      [
        {
          type: 'slack',
          name: 'S',
          config: { events: ['message.created'] },
          credentials: { webhookUrl: 'https://hooks.slack.com/services/x' },
        },
        'config.events',
      ],
    ];
    for (const [body, path] of cases) {
      const r = await w.a.call('POST', '/integrations', t.token, body);
      problem(r, 400, 'VALIDATION_ERROR');
      expect(
        r.body.errors.map((e: { path: string }) => e.path),
        JSON.stringify(body),
      ).toContain(path);
    }
    expect((await w.a.call('GET', '/integrations', t.token)).body.items).toEqual([]);
    const ok = await w.a.call('POST', '/integrations', t.token, {
      type: 'slack',
      name: 'S',
      credentials: { webhookUrl: 'https://hooks.slack.com/services/T1/B1/abcdefgh' },
    });
    expect(ok.status).toBe(201);
    expect(ok.body).toMatchObject({ type: 'slack', status: 'active', credentials: { webhookUrl: '****efgh' } });
  });
});

describe('delivery log and controls', () => {
  it('lists deliveries newest first with status filter and cursor paging', async () => {
    const t = await w.a.tenant();
    const ok = await receiver();
    const h = await hook(t, ok.url);
    const events = Array.from({ length: 5 }, (_, i) => event(t.tenantId, 'message.created', { i }));
    for (const e of events) await fanOut(e);
    await ok.waitFor(5);
    await w.rt.queue.idle();
    const first = await w.a.call('GET', `/integrations/${h.id}/deliveries?limit=2`, t.token);
    expect(first.status).toBe(200);
    expect(first.body.items.map((d: { eventId: string }) => d.eventId)).toEqual([events[4]!.id, events[3]!.id]);
    expect(Object.keys(first.body.items[0]).sort()).toEqual([
      'attempts',
      'createdAt',
      'eventId',
      'eventType',
      'id',
      'lastAttemptAt',
      'lastError',
      'lastResponseStatus',
      'nextAttemptAt',
      'status',
    ]);
    const seen: string[] = [];
    let cursor: string | null = null;
    do {
      const p: { status: number; body: any } = await w.a.call(
        'GET',
        `/integrations/${h.id}/deliveries?limit=2${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`,
        t.token,
      );
      seen.push(...p.body.items.map((d: { eventId: string }) => d.eventId));
      cursor = p.body.nextCursor;
    } while (cursor);
    expect(seen).toEqual(events.map((e) => e.id).reverse());
    expect(
      (await w.a.call('GET', `/integrations/${h.id}/deliveries?status=succeeded`, t.token)).body.items,
    ).toHaveLength(5);
    expect((await w.a.call('GET', `/integrations/${h.id}/deliveries?status=failed`, t.token)).body).toEqual({
      items: [],
      nextCursor: null,
    });
    problem(await w.a.call('GET', `/integrations/${h.id}/deliveries?status=lost`, t.token), 400, 'VALIDATION_ERROR');
    problem(await w.a.call('GET', `/integrations/${h.id}/deliveries?since=1`, t.token), 400, 'VALIDATION_ERROR');
    problem(await w.a.call('GET', `/integrations/${h.id}/deliveries?limit=0`, t.token), 400, 'VALIDATION_ERROR');
    // A cursor is bound to its list and filters.
    const c = first.body.nextCursor as string;
    problem(
      await w.a.call(
        'GET',
        `/integrations/${h.id}/deliveries?status=succeeded&cursor=${encodeURIComponent(c)}`,
        t.token,
      ),
      400,
      'INVALID_CURSOR',
    );
    const other = await hook(t, ok.url);
    problem(
      await w.a.call('GET', `/integrations/${other.id}/deliveries?cursor=${encodeURIComponent(c)}`, t.token),
      400,
      'INVALID_CURSOR',
    );
  });

  it('redelivers with the same webhook-id, and sends a signed ping for a test', async () => {
    const t = await w.a.tenant();
    const rcv = await receiver((n) => (n === 0 ? 400 : 200));
    const h = await hook(t, rcv.url);
    const e = event(t.tenantId, 'ticket.created', { ticket: { id: 'tkt_9' } });
    await fanOut(e);
    // The 400 is retried (after 5 s, compressed to well under a millisecond, so the list may never
    // show the failed attempt: webhooks-delivery.test.ts checks what a failure records); the
    // redelivery below is a new run with its own message.
    await rcv.waitFor(2);
    await w.rt.queue.idle();
    const [d] = (await w.a.call('GET', `/integrations/${h.id}/deliveries`, t.token)).body.items;
    expect(d).toMatchObject({ status: 'succeeded', attempts: 2 });
    const re = await w.a.call('POST', `/integrations/${h.id}/deliveries/${d.id}/redeliver`, t.token);
    expect(re.status).toBe(202);
    expect(re.body.delivery).toMatchObject({ id: d.id, eventId: e.id, status: 'pending', attempts: 2 });
    const got = await rcv.waitFor(3);
    expect(got[2]!.headers['webhook-id']).toBe(e.id);
    expect(new Webhook(h.secret).verify(got[2]!.body, got[2]!.headers as Record<string, string>)).toEqual(
      JSON.parse(got[0]!.body),
    );
    await w.rt.queue.idle();
    expect((await w.a.call('GET', `/integrations/${h.id}/deliveries`, t.token)).body.items[0]).toMatchObject({
      status: 'succeeded',
      attempts: 3,
    });

    const ping = await w.a.call('POST', `/integrations/${h.id}/test`, t.token);
    expect(ping.status).toBe(202);
    expect(ping.body.delivery).toMatchObject({ eventType: 'ping', status: 'pending', attempts: 0 });
    const [, , , p] = await rcv.waitFor(4);
    expect(p!.headers['webhook-id']).toBe(ping.body.delivery.eventId);
    const body = new Webhook(h.secret).verify(p!.body, p!.headers as Record<string, string>) as Record<string, unknown>;
    expect(body).toEqual({
      type: 'ping',
      timestamp: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/),
      data: {},
    });
    await w.rt.queue.idle();
  });

  it('refuses test and redelivery on a disabled integration with 409', async () => {
    const t = await w.a.tenant();
    const rcv = await receiver(() => 410);
    const h = await hook(t, rcv.url);
    const test = await w.a.call('POST', `/integrations/${h.id}/test`, t.token);
    await eventually(async () =>
      expect((await w.a.call('GET', '/integrations', t.token)).body.items[0].status).toBe('disabled'),
    );
    problem(await w.a.call('POST', `/integrations/${h.id}/test`, t.token), 409, 'CONFLICT');
    problem(
      await w.a.call('POST', `/integrations/${h.id}/deliveries/${test.body.delivery.id}/redeliver`, t.token),
      409,
      'CONFLICT',
    );
    await w.rt.queue.idle();
    expect(rcv.received).toHaveLength(1);
  });

  it('needs the admin role, and answers 404 for unknown or foreign ids whatever their shape', async () => {
    const [t, other] = await Promise.all([w.a.tenant('Mine'), w.a.tenant('Theirs')]);
    const rcv = await receiver();
    const mine = await hook(t, rcv.url);
    const theirs = await hook(other, rcv.url);
    const sent = await w.a.call('POST', `/integrations/${theirs.id}/test`, other.token);
    const theirDelivery = sent.body.delivery.id as string;
    await rcv.waitFor(1);
    await w.rt.queue.idle();
    for (const role of ['viewer', 'agent'] as const) {
      const token = await w.a.member(t, role);
      problem(await w.a.call('GET', `/integrations/${mine.id}/deliveries`, token), 403, 'FORBIDDEN');
      problem(await w.a.call('POST', `/integrations/${mine.id}/test`, token), 403, 'FORBIDDEN');
      problem(
        await w.a.call('POST', `/integrations/${mine.id}/deliveries/${theirDelivery}/redeliver`, token),
        403,
        'FORBIDDEN',
      );
    }
    const adminToken = await w.a.member(t, 'admin');
    expect((await w.a.call('GET', `/integrations/${mine.id}/deliveries`, adminToken)).status).toBe(200);

    // Another tenant's integration and delivery.
    problem(await w.a.call('GET', `/integrations/${theirs.id}/deliveries`, t.token), 404, 'NOT_FOUND');
    problem(await w.a.call('POST', `/integrations/${theirs.id}/test`, t.token), 404, 'NOT_FOUND');
    problem(
      await w.a.call('POST', `/integrations/${theirs.id}/deliveries/${theirDelivery}/redeliver`, t.token),
      404,
      'NOT_FOUND',
    );
    // Their delivery id under my integration.
    problem(
      await w.a.call('POST', `/integrations/${mine.id}/deliveries/${theirDelivery}/redeliver`, t.token),
      404,
      'NOT_FOUND',
    );
    for (const id of ['bad-id', 'int_', `int_${'A'.repeat(300)}`, '%00', 'x'.repeat(2000), '__proto__']) {
      problem(await w.a.call('GET', `/integrations/${encodeURIComponent(id)}/deliveries`, t.token), 404, 'NOT_FOUND');
      problem(await w.a.call('POST', `/integrations/${encodeURIComponent(id)}/test`, t.token), 404, 'NOT_FOUND');
      problem(
        await w.a.call('POST', `/integrations/${mine.id}/deliveries/${encodeURIComponent(id)}/redeliver`, t.token),
        404,
        'NOT_FOUND',
      );
      problem(
        await w.a.call('PUT', `/integrations/${encodeURIComponent(id)}`, t.token, {
          type: 'webhook',
          name: 'x',
          config: { url: rcv.url },
        }),
        404,
        'NOT_FOUND',
      );
      problem(await w.a.call('DELETE', `/integrations/${encodeURIComponent(id)}`, t.token), 404, 'NOT_FOUND');
    }
    problem(
      await w.a.call('POST', `/integrations/${mine.id}/deliveries/dlv_01J00000000000000000000000/redeliver`, t.token),
      404,
      'NOT_FOUND',
    );
    // The other tenant's delivery was not touched.
    expect((await w.a.call('GET', `/integrations/${theirs.id}/deliveries`, other.token)).body.items[0]).toMatchObject({
      status: 'succeeded',
      attempts: 1,
    });
  });
});

describe('Slack', () => {
  it('posts a readable message with a dashboard link for escalations and ticket status changes, nothing else', async () => {
    const t = await w.a.tenant();
    const slack = await receiver();
    const r = await w.a.call('POST', '/integrations', t.token, {
      type: 'slack',
      name: 'Support channel',
      credentials: { webhookUrl: `http://127.0.0.1:${slack.port}/services/T1/B1/x` },
    });
    expect(r.status, r.text).toBe(201);
    const ticket = {
      id: 'tkt_01J0000000000000000000000A',
      conversationId: 'c0ffee00-0000-4000-8000-000000000001',
      status: 'open',
      priority: 'high',
      reason: 'Customer <b>wants</b> a refund & more',
    };
    await fanOut(event(t.tenantId, 'message.created', { conversationId: ticket.conversationId, message: { id: 'm' } }));
    await fanOut(event(t.tenantId, 'ticket.created', { ticket }));
    await fanOut(event(t.tenantId, 'conversation.escalated', { conversation: { id: ticket.conversationId }, ticket }));
    await fanOut(
      event(t.tenantId, 'ticket.updated', {
        ticket: { ...ticket, priority: 'urgent' },
        changes: { priority: { from: 'high', to: 'urgent' } },
      }),
    );
    await fanOut(
      event(t.tenantId, 'ticket.updated', {
        ticket: { ...ticket, status: 'resolved' },
        changes: { status: { from: 'open', to: 'resolved' } },
      }),
    );
    const got = await slack.waitFor(2);
    await w.rt.queue.idle();
    expect(got).toHaveLength(2);
    const link = `${process.env.DASHBOARD_URL}/conversations/${ticket.conversationId}`;
    const [escalated, resolved] = got.map((g) => JSON.parse(g.body));
    expect(escalated.text).toContain('Conversation escalated');
    expect(escalated.blocks[0]).toEqual({
      type: 'header',
      text: { type: 'plain_text', text: 'Conversation escalated', emoji: true },
    });
    expect(JSON.stringify(escalated.blocks)).toContain('Customer &lt;b&gt;wants&lt;/b&gt; a refund &amp; more');
    expect(JSON.stringify(escalated.blocks)).toContain(ticket.id);
    expect(escalated.blocks.at(-1).elements[0]).toMatchObject({ type: 'button', url: link });
    expect(resolved.blocks[0].text.text).toBe('Ticket resolved');
    expect(JSON.stringify(resolved.blocks)).toContain('open → resolved');
    expect(resolved.blocks.at(-1).elements[0].url).toBe(link);
    // Only what was posted is in the log: nothing accepted does nothing.
    const log = (await w.a.call('GET', `/integrations/${r.body.id}/deliveries`, t.token)).body.items;
    expect(log.map((d: { eventType: string; status: string }) => `${d.eventType} ${d.status}`).sort()).toEqual([
      'conversation.escalated succeeded',
      'ticket.updated succeeded',
    ]);
    const ping = await w.a.call('POST', `/integrations/${r.body.id}/test`, t.token);
    expect(ping.status).toBe(202);
    const [, , p] = await slack.waitFor(3);
    expect(JSON.parse(p!.body).blocks[0].text.text).toBe('Test message');
    await w.rt.queue.idle();
  });
});
