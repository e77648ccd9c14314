import { describe, expect, inject, it } from 'vitest';
import { admin, baseUrl, newTenant, request } from './client.ts';
import { eventually } from '../support/eventually.ts';

// The runtime's stand-ins for S3, SQS and the caught mail are on a port of their own, never the
// dashboard's origin, and answer the runtime's own functions (which sign) but not a bare request.

describe("the local runtime's stand-ins", () => {
  it("are not on the dashboard's origin", async () => {
    expect(new URL(inject('standInsUrl')).origin).not.toBe(new URL(baseUrl()).origin);
    const secret = new URL(inject('mailUrl')).pathname;
    for (const path of [
      '/local-s3/mail/x',
      '/local-mail',
      '/local-mail/messages.json',
      `${secret}/messages.json`,
      '/local-live/@connections/x',
    ]) {
      expect((await fetch(baseUrl() + path)).status, path).toBe(404);
    }
    expect(
      (
        await fetch(`${baseUrl()}/local-sqs`, {
          method: 'POST',
          headers: { 'x-amz-target': 'AmazonSQS.GetQueueAttributes' },
          body: '{}',
        })
      ).status,
    ).toBe(404);
  });

  it('serve the links the service signs, and refuse the same request unsigned', async () => {
    const t = await newTenant('Signed Links Shop');
    const started = await request('POST', admin('/tenant/export'), { token: t.ownerToken });
    expect(started.status).toBe(202);
    const r = await eventually(
      async () => {
        const job = await request('GET', admin(`/tenant/export/${started.body.id}`), { token: t.ownerToken });
        expect(job.body.status).toBe('done');
        return job;
      },
      { timeout: 30_000 },
    );
    const file = await fetch(r.body.url);
    expect(file.status).toBe(200);
    expect(file.headers.get('x-content-type-options')).toBe('nosniff');
    expect(file.headers.get('content-disposition')).toMatch(/^attachment/);
    const bare = new URL(r.body.url);
    expect(bare.origin).toBe(new URL(inject('standInsUrl')).origin);
    bare.search = '';
    expect((await fetch(bare)).status).toBe(403);
    expect(
      (await fetch(bare, { method: 'PUT', body: '<script>1</script>', headers: { 'content-type': 'text/html' } }))
        .status,
    ).toBe(403);
    expect((await fetch(bare, { method: 'DELETE' })).status).toBe(403);
    expect((await fetch(r.body.url)).status).toBe(200);
    // The caught mail (every tenant's, reply tokens included) only under the secret address `npm start` prints.
    expect((await fetch(`${inject('standInsUrl')}/local-mail/messages.json`)).status).toBe(403);
    const mail = await fetch(`${inject('mailUrl')}/messages.json`, { headers: { origin: 'https://evil.example' } });
    expect(mail.status).toBe(200);
    expect(mail.headers.get('access-control-allow-origin')).toBeNull();
  });
});
