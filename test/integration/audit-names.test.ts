import { describe, expect, it } from 'vitest';
import { admin, memberToken, newTenant, newTicket, request } from './client.ts';

// People, not ids: members carry a display name (chosen, else read from their email), and the
// audit log and a ticket's trail name who made each change, what it changed and the members a
// change names, while the entries themselves keep the ids.

describe('display names and audit names', () => {
  it('a member list names everyone: the chosen name, else a readable form of the email, never the role word of an address', async () => {
    const t = await newTenant();
    const invite = (email: string) =>
      request('POST', admin('/members'), { token: t.ownerToken, body: { email, role: 'agent' } });
    const jane = await invite('jane.doe@example.com');
    expect(jane.status).toBe(201);
    expect(jane.body.displayName).toBe('Jane Doe');
    expect((await invite('Owner@Example.com')).body.displayName).toBe('Support');
    expect((await invite('j_smith+work@example.com')).body.displayName).toBe('J Smith');
    const listed = (await request('GET', admin('/members'), { token: t.ownerToken })).body.items as {
      email: string;
      displayName: string;
    }[];
    expect(Object.fromEntries(listed.map((m) => [m.email, m.displayName]))).toMatchObject({
      'jane.doe@example.com': 'Jane Doe',
      'owner@example.com': 'Support',
      'j_smith+work@example.com': 'J Smith',
    });
  });

  it('a ticket trail and the audit log name the actor, the target and the assignee; gone targets have no name', async () => {
    const t = await newTenant();
    const agent = await memberToken(t, 'agent');
    expect(
      (await request('PATCH', admin('/auth/me'), { token: agent.token, body: { displayName: 'Sam Agent' } })).status,
    ).toBe(200);
    const { ticketId } = await newTicket(t);
    const patched = await request('PATCH', admin(`/tickets/${ticketId}`), {
      token: agent.token,
      body: { assigneeId: agent.sub },
    });
    expect(patched.status).toBe(200);

    const detail = (await request('GET', admin(`/tickets/${ticketId}`), { token: agent.token })).body;
    const [assigned, created] = [
      detail.auditTrail.find((e: { action: string }) => e.action === 'ticket.updated'),
      detail.auditTrail.find((e: { action: string }) => e.action === 'ticket.created'),
    ];
    expect(assigned).toMatchObject({
      actor: { type: 'user', id: agent.sub },
      actorName: 'Sam Agent',
      targetName: '#1',
      changes: { assigneeId: { from: null, to: agent.sub } },
      names: { [agent.sub]: 'Sam Agent' },
    });
    expect(created).toMatchObject({
      actor: { type: 'widget' },
      actorName: 'the chat widget',
      targetName: '#1',
      names: {},
    });

    const intent = await request('POST', admin('/intents'), {
      token: t.ownerToken,
      body: { name: 'gift_wrap', trainingPhrases: ['can you gift wrap it'], response: 'Yes.' },
    });
    expect(intent.status).toBe(201);
    const article = await request('POST', admin('/articles'), {
      token: t.ownerToken,
      body: { title: 'Gift wrapping', body: 'We wrap gifts.' },
    });
    expect(article.status).toBe(201);
    expect((await request('DELETE', admin(`/articles/${article.body.id}`), { token: t.ownerToken })).status).toBe(204);
    const taught = await request('POST', admin('/nlu/examples'), {
      token: t.ownerToken,
      body: { message: 'please wrap it as a present', target: { intentId: intent.body.id } },
    });
    expect(taught.status).toBe(201);

    const audit = (await request('GET', admin('/audit'), { token: t.ownerToken })).body.items as Array<
      Record<string, unknown> & { action: string }
    >;
    const entry = (action: string) => audit.find((e) => e.action === action)!;
    expect(entry('intent.created')).toMatchObject({
      actorName: expect.not.stringMatching(/^(owner|Owner)$/),
      targetName: 'gift_wrap',
    });
    expect(entry('ticket.updated')).toMatchObject({ actorName: 'Sam Agent', targetName: '#1' });
    // The article is gone: its entries name no target (the dashboard says "since removed").
    expect(entry('article.created')).toMatchObject({ targetName: null });
    expect(entry('member.joined')).toMatchObject({
      actorName: 'Sam Agent',
      targetName: 'Sam Agent',
      names: { [agent.sub]: 'Sam Agent' },
    });
    // A taught example names its intent by name beside the id it keeps.
    expect(entry('example.created')).toMatchObject({
      changes: { target: { to: { intentId: intent.body.id } } },
      names: { [intent.body.id]: 'gift_wrap' },
    });
    // The entries keep their ids: the names are read beside them.
    expect(entry('ticket.updated')).toMatchObject({ target: { type: 'ticket', id: ticketId } });
  });
});
