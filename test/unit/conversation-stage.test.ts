import { describe, expect, it } from 'vitest';
import { sameValue } from '#shared/domain/audit-value.ts';
import { stageOf } from '#shared/domain/handoff/tickets-rules.ts';

describe('sameValue (a change worth auditing)', () => {
  it("reads objects alike whatever their keys' order, and an empty object as none", () => {
    expect(
      sameValue(
        { timezone: 'UTC', weekly: { mon: [], tue: [['09:00', '17:00']] } },
        { weekly: { tue: [['09:00', '17:00']], mon: [] }, timezone: 'UTC' },
      ),
    ).toBe(true);
    expect(sameValue(undefined, {})).toBe(true);
    expect(sameValue(['a', 'b'], ['b', 'a'])).toBe(false);
    expect(sameValue({ a: 1 }, { a: 2 })).toBe(false);
  });
});

describe('stageOf (what a conversation needs)', () => {
  const base = {
    status: 'escalated' as const,
    latestTicketId: 'tkt_1',
    createdAt: '2026-11-28T10:00:00.000Z',
    lastCustomerMessageAt: '2026-11-28T10:05:00.000Z',
  };
  it('follows the latest ticket and whose word is last', () => {
    expect(stageOf({ ...base, status: 'active', latestTicketId: undefined })).toBeNull();
    expect(stageOf({ ...base, latestTicketStatus: 'open' })).toBe('waiting_for_us');
    expect(
      stageOf({ ...base, latestTicketStatus: 'in_progress', lastAgentMessageAt: '2026-11-28T10:06:00.000Z' }),
    ).toBe('waiting_for_customer');
    expect(
      stageOf({ ...base, latestTicketStatus: 'in_progress', lastAgentMessageAt: '2026-11-28T10:04:00.000Z' }),
    ).toBe('waiting_for_us');
    expect(stageOf({ ...base, latestTicketStatus: 'waiting' })).toBe('waiting_for_customer');
    expect(stageOf({ ...base, latestTicketStatus: 'resolved' })).toBe('done');
    expect(stageOf({ ...base, status: 'closed', latestTicketStatus: 'closed' })).toBe('done');
  });
});
