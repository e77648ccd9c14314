import { describe, expect, inject, it } from 'vitest';
import { admin, newSub, newTenant, putConfig, request } from './client.ts';
import { eventually, present } from '../support/eventually.ts';

// Settings' email controls: the sending address with SES's word on it (the local runtime's stand-in
// calls the inbound domain verified and any other domain pending), and the invitation email a new
// member receives through the outbound mail path, read from the local catcher.

async function caught(match: (m: Record<string, any>) => boolean, timeoutMs = 8000) {
  return eventually(
    async () => {
      const r = await fetch(`${inject('mailUrl')}/messages.json`);
      return present(((await r.json()) as { items: Array<Record<string, any>> }).items.find(match), 'such mail caught');
    },
    { what: 'the mail', timeout: timeoutMs, interval: 50 },
  );
}

describe('settings: email controls', () => {
  it('shows the sending address with its verification, and none without one', async () => {
    const t = await newTenant('Sender Shop');
    const before = await request('GET', admin('/settings'), { token: t.ownerToken });
    expect(before.status).toBe(200);
    expect(before.body.emailSender).toBeNull();

    await putConfig(t, { email: { fromAddress: 'help@bikes.example', autoReply: 'knowledge' } });
    const pending = await request('GET', admin('/settings'), { token: t.ownerToken });
    expect(pending.body.emailSender).toEqual({ address: 'help@bikes.example', status: 'pending' });
    expect(pending.body.config.email).toMatchObject({ autoReply: 'knowledge', fromAddress: 'help@bikes.example' });

    await putConfig(t, { email: { fromAddress: 'team@mail.localhost' } });
    const verified = await request('GET', admin('/settings'), { token: t.ownerToken });
    expect(verified.body.emailSender).toEqual({ address: 'team@mail.localhost', status: 'verified' });

    // Sending back what GET showed is accepted (emailSender is shown, not set).
    const back = await request('PUT', admin('/settings'), {
      token: t.ownerToken,
      body: { config: { email: { ...verified.body.config.email, autoReply: 'off' } } },
    });
    expect(back.status).toBe(200);
    expect(back.body.config.email.autoReply).toBe('off');
  });

  it('emails an invited member the link to sign in, from the team', async () => {
    const t = await newTenant('Invite Cycles');
    const email = `${newSub('invited')}@crew.example`;
    const inv = await request('POST', admin('/members'), { token: t.ownerToken, body: { email, role: 'agent' } });
    expect(inv.status).toBe(201);
    const mail = await caught((m) => m.envelope.to.includes(email));
    expect(mail.subject).toBe("You're invited to join Invite Cycles");
    expect(mail.text).toContain(`Sign in with this address (${email}) to join: ${inject('baseUrl')}/`);
    expect(mail.text).toContain('as an agent');
    expect(mail.headers['auto-submitted']).toBe('auto-generated');
  });

  it('sends one email per invitation: a refused second invitation of the same address sends none', async () => {
    const t = await newTenant('Invite Twice');
    const email = `${newSub('dup')}@crew.example`;
    expect(
      (await request('POST', admin('/members'), { token: t.ownerToken, body: { email, role: 'admin' } })).status,
    ).toBe(201);
    const again = await request('POST', admin('/members'), { token: t.ownerToken, body: { email, role: 'admin' } });
    expect(again.status).toBe(409);
    await caught((m) => m.envelope.to.includes(email));
    // One mail for the one invitation: a second one, if any, would be caught within this fixed wait.
    await new Promise((res) => setTimeout(res, 500));
    const r = await fetch(`${inject('mailUrl')}/messages.json`);
    const all = ((await r.json()) as { items: Array<Record<string, any>> }).items;
    expect(all.filter((m) => m.envelope.to.includes(email))).toHaveLength(1);
  });
});
