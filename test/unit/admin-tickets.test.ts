import { describe, expect, it } from 'vitest';
import { conversationEffect, planTicketChange } from '#shared/domain/handoff/tickets.ts';
import { TICKET_STATUSES } from '#shared/core/vocabulary.ts';
import type { Conversation } from '#shared/data/conversations.ts';
import { ALLOWED } from '../fixtures/ticket-transitions.ts';

describe('planTicketChange', () => {
  for (const from of TICKET_STATUSES) {
    for (const to of TICKET_STATUSES) {
      const expected = from === to ? 'no change' : ALLOWED[from].includes(to) ? 'allowed' : 'refused';
      it(`${from} -> ${to}: ${expected}`, () => {
        const plan = () => planTicketChange({ status: from, priority: 'medium', assigneeId: null }, { status: to });
        if (expected === 'refused') expect(plan).toThrow(expect.objectContaining({ code: 'INVALID_TRANSITION' }));
        else if (expected === 'no change') expect(plan()).toEqual({});
        else expect(plan()).toEqual({ status: { from, to } });
      });
    }
  }

  it('records only the fields that change', () => {
    expect(
      planTicketChange({ status: 'open', priority: 'low', assigneeId: null }, { status: 'open', priority: 'high' }),
    ).toEqual({ priority: { from: 'low', to: 'high' } });
    expect(planTicketChange({ status: 'open', priority: 'low', assigneeId: null }, { priority: 'low' })).toEqual({});
  });

  it('refuses a priority change on a closed ticket, but a no-op is not a change', () => {
    expect(() =>
      planTicketChange({ status: 'closed', priority: 'low', assigneeId: null }, { priority: 'high' }),
    ).toThrow(/closed/);
    expect(
      planTicketChange({ status: 'closed', priority: 'low', assigneeId: null }, { status: 'closed', priority: 'low' }),
    ).toEqual({});
  });

  it('records an assignment, refuses one on a closed ticket, and a same assignee is no change', () => {
    expect(planTicketChange({ status: 'open', priority: 'low', assigneeId: null }, { assigneeId: 'u1' })).toEqual({
      assigneeId: { from: null, to: 'u1' },
    });
    expect(planTicketChange({ status: 'open', priority: 'low', assigneeId: 'u1' }, { assigneeId: null })).toEqual({
      assigneeId: { from: 'u1', to: null },
    });
    expect(planTicketChange({ status: 'open', priority: 'low', assigneeId: 'u1' }, { assigneeId: 'u1' })).toEqual({});
    expect(() =>
      planTicketChange({ status: 'closed', priority: 'low', assigneeId: null }, { assigneeId: 'u1' }),
    ).toThrow(expect.objectContaining({ code: 'INVALID_TRANSITION' }));
  });

  it('refuses the whole request when one part is forbidden', () => {
    expect(() =>
      planTicketChange({ status: 'waiting', priority: 'low', assigneeId: null }, { status: 'open', priority: 'high' }),
    ).toThrow(expect.objectContaining({ code: 'INVALID_TRANSITION' }));
  });
});

describe('conversationEffect', () => {
  const conv = (over: Partial<Conversation> = {}): Conversation => ({
    id: 'c',
    tenantId: 't',
    status: 'escalated',
    createdAt: '',
    updatedAt: '',
    messageCount: 2,
    userMessageCount: 1,
    lastMessagePreview: '',
    lastIntent: null,
    latestTicketId: 'k1',
    latestTicketStatus: 'open',
    unclosedTickets: 1,
    ...over,
  });
  const now = '2026-01-01T00:00:00.000Z';

  it('syncs the latest ticket status', () => {
    expect(conversationEffect(conv(), 'k1', 'open', 'waiting', now)).toEqual({
      set: { latestTicketStatus: 'waiting' },
      closing: false,
    });
  });
  it('leaves the conversation alone for an older ticket that does not close', () => {
    expect(conversationEffect(conv(), 'k0', 'open', 'resolved', now)).toBeNull();
  });
  it('closes the conversation with its last unclosed ticket', () => {
    expect(conversationEffect(conv(), 'k1', 'resolved', 'closed', now)).toEqual({
      set: { latestTicketStatus: 'closed', status: 'closed', updatedAt: now },
      closing: true,
    });
  });
  it('only counts down while other tickets stay unclosed', () => {
    expect(conversationEffect(conv({ unclosedTickets: 2 }), 'k0', 'resolved', 'closed', now)).toEqual({
      set: {},
      closing: true,
    });
  });
});
