import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { LocalRuntime } from '../../local/runtime.ts';
import { api, chatOn, startRuntime, type Api } from './webhooks/harness.ts';

// "Resolved by the assistant" through the API and the scheduled job, on a table of its own, the job
// run in this process with a later `now`: a conversation counts once, 30 minutes after its last
// message, when it has no ticket and at least one answer that was not a fallback.

let rt: LocalRuntime;
let a: Api;
let runResolutions: (now?: Date) => Promise<unknown>;
beforeAll(async () => {
  rt = await startRuntime();
  a = api(rt);
  // The data modules read the runtime's table when first loaded: only after it started.
  ({ runResolutions } = await import('#shared/domain/reports/resolutions.ts'));
}, 60_000);
afterAll(async () => {
  await rt?.stop();
});

const MIN = 60_000;

describe('GET /stats kpis.assistantResolutions', () => {
  it('counts conversations the assistant answered without a ticket, once, when 30 minutes have passed', async () => {
    const t = await a.tenant('Resolution Shop');
    const say = async (message: string, conversationId?: string) => {
      const r = await chatOn(rt, t.widgetKey, '/message', { message, ...(conversationId ? { conversationId } : {}) });
      expect(r.status).toBe(200);
      return r.body as { conversationId: string; metadata: { intentDetected: string; ticketId?: string } };
    };
    // Answered (small talk is an answer, not a fallback), and nothing more.
    const answered = await say('hello there');
    expect(answered.metadata.intentDetected).toBe('greeting');
    // Only the fallback.
    expect((await say('qwzx vlorp blarg')).metadata.intentDetected).toBe('fallback');
    // Answered, then handed over: a ticket.
    const handed = await say('hi');
    expect((await say('I want to talk to a human', handed.conversationId)).metadata.ticketId).toMatch(/^tkt_/);
    const start = Date.now();
    const kpis = async () => (await a.call('GET', '/stats', t.token)).body.kpis;
    expect(await kpis()).toMatchObject({ conversations: 3, assistantResolutions: 0, assistantResolutionRate: 0 });

    // Before 30 minutes nothing is due.
    await runResolutions(new Date(start + 25 * MIN));
    expect((await kpis()).assistantResolutions).toBe(0);
    // Once due: the answered conversation counts, the fallback-only and the handed-over ones do not.
    await runResolutions(new Date(start + 45 * MIN));
    expect(await kpis()).toMatchObject({ conversations: 3, assistantResolutions: 1, assistantResolutionRate: 1 / 3 });
    // A later run counts it no more; a new message on it later does not count it twice either.
    await runResolutions(new Date(start + 55 * MIN));
    await say('thanks!', answered.conversationId);
    await runResolutions(new Date(Date.now() + 45 * MIN));
    expect(await kpis()).toMatchObject({ assistantResolutions: 1, assistantResolutionRate: 1 / 3 });
  }, 60_000);

  it('does not count a conversation whose customer wrote again before it was due', async () => {
    const t = await a.tenant('Busy Shop');
    const first = await chatOn(rt, t.widgetKey, '/message', { message: 'hello' });
    const id = first.body.conversationId as string;
    // A later message asks for a person: the earlier due entry finds a ticket, the later one too.
    await chatOn(rt, t.widgetKey, '/message', { message: 'talk to a human please', conversationId: id });
    await runResolutions(new Date(Date.now() + 45 * MIN));
    expect((await a.call('GET', '/stats', t.token)).body.kpis).toMatchObject({
      conversations: 1,
      assistantResolutions: 0,
    });
  }, 60_000);
});
