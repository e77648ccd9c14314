import { describe, expect, it } from 'vitest';
import { existsSync } from 'node:fs';
import { findRoute, routes } from '#shared/edge/routes/index.ts';
import { routeKey, BODY_LIMIT } from '#shared/edge/route.ts';
import { roleAtLeast } from '#shared/core/vocabulary.ts';
import { keys, timeSortKey } from '#shared/data/keys.ts';
import { createTableInput, tableDefinition } from '#shared/data/table.ts';
import { TICKET_STATUSES } from '#shared/core/vocabulary.ts';
import { canMove } from '#shared/domain/handoff/tickets-rules.ts';
import { tenantSettings, DEFAULTS } from '#shared/domain/tenants/tenant-config.ts';
import { hashWidgetKey, newWidgetKey } from '#shared/domain/tenants/widget-keys.ts';
import { preview } from '#shared/data/conversations.ts';

describe('route table', () => {
  it('names an existing handler file for every row, and each route key once', () => {
    for (const r of routes) expect(existsSync(`functions/${r.handler}.ts`), r.handler).toBe(true);
    expect(new Set(routes.map(routeKey)).size).toBe(routes.length);
  });
  it('puts every admin route behind the JWT authorizer and every chat route behind the widget key', () => {
    for (const r of routes) {
      if (r.path.startsWith('/api/v1/admin/')) expect(r.auth, r.path).toBe('jwt');
      if (r.path.startsWith('/api/v1/chat/')) expect(r.auth, r.path).toBe('widget');
    }
    expect(findRoute('PATCH /api/v1/admin/tickets/{id}')).toMatchObject({ role: 'agent', table: 'write' });
    expect(findRoute('GET /api/v1/admin/nope')).toBeUndefined();
  });
  it('orders roles viewer < agent < admin < owner', () => {
    expect(roleAtLeast('owner', 'admin')).toBe(true);
    expect(roleAtLeast('agent', 'agent')).toBe(true);
    expect(roleAtLeast('viewer', 'agent')).toBe(false);
    expect(roleAtLeast('admin', 'owner')).toBe(false);
  });
  it('has the documented body limits', () => {
    expect(BODY_LIMIT.widget).toBe(16384);
    expect(BODY_LIMIT.jwt).toBe(262144);
  });
});

describe('keys', () => {
  it('starts every tenant-owned partition key with TENANT#<id>', () => {
    const t = 't1';
    const built = [
      keys.tenant(t),
      keys.counters(t),
      keys.intent(t, 'i'),
      keys.intentName(t, 'n'),
      keys.member(t, 'm'),
      keys.conversation(t, 'c'),
      keys.message(t, 'c', '2026-01-01T00:00:00.000Z', 0, 'm'),
      keys.ticket(t, 'k'),
      keys.audit(t, 'a', { type: 'intent', id: 'i' }),
      keys.audit(t, 'a', { type: 'ticket', id: 'k' }),
      keys.statsDay(t, '2026-01-01'),
      keys.idempotency(t, 'r', 'k'),
      keys.rateWindow(t, 'c', 'x'),
    ];
    for (const k of built) expect(k.pk.startsWith(`TENANT#${t}`), k.pk).toBe(true);
    expect(keys.user('s').pk).toBe('USER#s');
    expect(keys.widgetKey('h').pk).toBe('WIDGETKEY#h');
  });
  it('sorts messages by time, user before assistant', () => {
    const at = '2026-01-01T00:00:00.000Z';
    const user = keys.message('t', 'c', at, 0, 'zzz').sk;
    const bot = keys.message('t', 'c', at, 1, 'aaa').sk;
    const later = keys.message('t', 'c', '2026-01-01T00:00:00.001Z', 0, 'aaa').sk;
    expect([later, bot, user].sort()).toEqual([user, bot, later]);
    // The conversation item sorts before its messages, so one Query returns it first.
    expect(['MSG#x', keys.conversation('t', 'c').sk].sort()[0]).toBe('CONV');
  });
  it('keeps intent hit shards out of the intent prefix', () => {
    expect(`${keys.intentHits('t').sk}#3`.startsWith(keys.intentPrefix('t').skPrefix)).toBe(false);
    expect(timeSortKey('2026', 'id')).toBe('2026#id');
  });
  it('builds the table input from the one definition', () => {
    const input = createTableInput('x');
    expect(input.GlobalSecondaryIndexes.map((g) => g.IndexName)).toEqual(tableDefinition.indexes.map((i) => i.name));
    expect(input.KeySchema).toEqual([
      { AttributeName: 'pk', KeyType: 'HASH' },
      { AttributeName: 'sk', KeyType: 'RANGE' },
    ]);
  });
});

describe('ticket transitions', () => {
  it('follows the documented transition table exactly', () => {
    const allowed = TICKET_STATUSES.flatMap((from) =>
      TICKET_STATUSES.filter((to) => canMove(from, to)).map((to) => `${from}>${to}`),
    );
    expect(allowed.sort()).toEqual([
      'in_progress>closed',
      'in_progress>open',
      'in_progress>resolved',
      'in_progress>waiting',
      'open>closed',
      'open>in_progress',
      'open>resolved',
      'open>waiting',
      'resolved>closed',
      'resolved>open',
      'waiting>closed',
      'waiting>in_progress',
      'waiting>resolved',
    ]);
  });
});

describe('tenant settings', () => {
  it('falls back to the defaults on missing or bad values', () => {
    expect(tenantSettings({})).toEqual({
      greeting: DEFAULTS.greeting,
      fallbackMessage: DEFAULTS.fallbackMessage,
      confidenceThreshold: DEFAULTS.confidenceThreshold,
      defaultPriority: 'medium',
      knowledgeEnabled: true,
      knowledgeThreshold: DEFAULTS.knowledgeThreshold,
    });
    expect(
      tenantSettings({ nlu: { confidenceThreshold: 7 }, escalation: { defaultPriority: 'huge' } }).confidenceThreshold,
    ).toBe(DEFAULTS.confidenceThreshold);
    expect(
      tenantSettings({
        nlu: { confidenceThreshold: 0.2 },
        escalation: { defaultPriority: 'urgent' },
        assistant: { fallbackMessage: 'Hm?', greeting: 'Hello' },
      }),
    ).toEqual({
      greeting: 'Hello',
      fallbackMessage: 'Hm?',
      confidenceThreshold: 0.2,
      defaultPriority: 'urgent',
      knowledgeEnabled: true,
      knowledgeThreshold: DEFAULTS.knowledgeThreshold,
    });
  });
});

describe('widget keys', () => {
  it('are random, hashed and previewed by their last four characters', () => {
    const a = newWidgetKey();
    const b = newWidgetKey();
    expect(a.key).toMatch(/^wk_[A-Za-z0-9_-]{43}$/);
    expect(a.key).not.toBe(b.key);
    expect(a.hash).toBe(hashWidgetKey(a.key));
    expect(a.hash).not.toContain(a.key.slice(3));
    expect(a.preview).toBe(`****${a.key.slice(-4)}`);
  });
  it('previews messages by code points', () => {
    expect(preview('😀'.repeat(200))).toBe(`${'😀'.repeat(119)}…`);
    expect(preview('short')).toBe('short');
  });
});

describe('page query', () => {
  it('takes limit as plain digits from 1 to 100, default 20', async () => {
    const z = await import('zod');
    const { pageQuery } = await import('#shared/edge/schema.ts');
    const Q = z.strictObject(pageQuery);
    expect(Q.parse({})).toEqual({ limit: 20 });
    expect(Q.parse({ limit: '100' }).limit).toBe(100);
    for (const bad of ['0', '101', '0x10', '1e1', ' 5', '5.0', '-1', 'abc', ''])
      expect(Q.safeParse({ limit: bad }).success, bad).toBe(false);
  });
});
