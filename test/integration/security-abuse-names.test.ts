import { describe, expect, it } from 'vitest';
import { admin, expectProblem, newTenant, request, tokenFor, newSub } from './client.ts';

// Issue probes, written as the attacks: addresses that reach private hosts through IPv6 forms or
// userinfo, names that hide or spoof who is speaking, article URLs that smuggle attributes, and a
// theme colour that is not a colour. Each gets a 400 and writes nothing.

const webhook = (url: string) => ({ type: 'webhook', name: 'Hook', config: { url } });
const slack = (webhookUrl: string) => ({ type: 'slack', name: 'Slack', credentials: { webhookUrl } });

describe('address checks at creation', () => {
  it.each([
    'https://[::127.0.0.1]/',
    'https://[::a9fe:a9fe]/latest/meta-data',
    'https://[::8.8.8.8]/',
    'https://[64:ff9b::a9fe:a9fe]/',
    'https://[2002:a9fe:a9fe::1]/',
    'https://[2001:0:4136:e378:8000:63bf:3fff:fdd2]/',
    'https://[::ffff:169.254.169.254]/',
    'https://user@hooks.example.com/',
    'https://a:b@hooks.example.com/',
  ])('refuses the webhook URL %s', async (url) => {
    const t = await newTenant();
    expectProblem(
      await request('POST', admin('/integrations'), { token: t.ownerToken, body: webhook(url) }),
      400,
      'VALIDATION_ERROR',
    );
    expect((await request('GET', admin('/integrations'), { token: t.ownerToken })).body.items).toEqual([]);
  });

  it.each([
    'http://127.0.0.1:4401@169.254.169.254/latest/meta-data',
    'https://hooks.slack.com@169.254.169.254/services/x',
    'https://x:y@hooks.slack.com/services/T/B/C',
    'https://[::a9fe:a9fe]/services/x',
  ])('refuses the Slack URL %s', async (url) => {
    const t = await newTenant();
    const r = await request('POST', admin('/integrations'), { token: t.ownerToken, body: slack(url) });
    expectProblem(r, 400, 'VALIDATION_ERROR');
    expect(r.body.errors[0].path).toBe('credentials.webhookUrl');
  });

  it('still takes a Slack incoming-webhook URL', async () => {
    const t = await newTenant();
    expect(
      (
        await request('POST', admin('/integrations'), {
          token: t.ownerToken,
          body: slack('https://hooks.slack.com/services/T0/B0/xyz'),
        })
      ).status,
    ).toBe(201);
  });
});

const spoofs = [
  '\u200B\u200B',
  '\u2066Support\u2069',
  'Al\u202Eecil',
  'Bob\u0007',
  'line\nbreak',
  '\u200E',
  '\u3164',
  'a\u061Cb',
  '\uFEFF \u2060',
];

describe('names shown to others', () => {
  it.each(spoofs)('refuses the display name %j', async (name) => {
    const t = await newTenant();
    const r = await request('PATCH', admin('/auth/me'), { token: t.ownerToken, body: { displayName: name } });
    expectProblem(r, 400, 'VALIDATION_ERROR');
    expect(r.body.errors[0].path).toBe('displayName');
    expect((await request('GET', admin('/auth/me'), { token: t.ownerToken })).body.displayName).not.toBe(name);
  });

  it('refuses such tenant, integration and tag names, and keeps ordinary names in any script', async () => {
    const token = await tokenFor(newSub('names'));
    expectProblem(
      await request('POST', admin('/auth/onboard'), { token, body: { tenantName: '\u202Egnp.exe' } }),
      400,
      'VALIDATION_ERROR',
    );
    const t = await newTenant();
    expectProblem(
      await request('PUT', admin('/settings'), { token: t.ownerToken, body: { name: '\u200B' } }),
      400,
      'VALIDATION_ERROR',
    );
    expectProblem(
      await request('POST', admin('/integrations'), {
        token: t.ownerToken,
        body: { ...webhook('https://hooks.example.com/x'), name: 'x\u0000' },
      }),
      400,
      'VALIDATION_ERROR',
    );
    expectProblem(
      await request('POST', admin('/articles'), {
        token: t.ownerToken,
        body: { title: 'T', body: 'B', tags: ['\u2067'] },
      }),
      400,
      'VALIDATION_ERROR',
    );
    expectProblem(
      await request('PUT', admin('/settings'), {
        token: t.ownerToken,
        body: { config: { widget: { theme: { title: '\u202Eplh' } } } },
      }),
      400,
      'VALIDATION_ERROR',
    );
    for (const name of ['Zoë', 'محمد', '山田 太郎', 'O\u2019Brien 👋', 'देवनागरी']) {
      expect(
        (await request('PATCH', admin('/auth/me'), { token: t.ownerToken, body: { displayName: name } })).status,
        name,
      ).toBe(200);
    }
  });
});

describe('article URLs and the theme colour', () => {
  it('stores an article URL as the URL standard serialises it, so no quote or space reaches an attribute', async () => {
    const t = await newTenant();
    const r = await request('POST', admin('/articles'), {
      token: t.ownerToken,
      body: { title: 'Returns', body: 'How to return.', url: 'https://help.example/x" onmouseover="alert(1)' },
    });
    expect(r.status).toBe(201);
    expect(r.body.url).toBe('https://help.example/x%22%20onmouseover=%22alert(1)');
    expect(r.body.url).not.toMatch(/["' <>]/);
    const got = await request('GET', admin(`/articles/${r.body.id}`), { token: t.ownerToken });
    expect(got.body.url).toBe(r.body.url);
    expectProblem(
      await request('POST', admin('/articles'), {
        token: t.ownerToken,
        body: { title: 'X', body: 'Y', url: 'https://u:p@help.example/' },
      }),
      400,
      'VALIDATION_ERROR',
    );
  });

  it.each(['red; background:url(//evil)', 'javascript:alert(1)', '#12345', '#ggg', '', 'rgb(0,0,0)', 5])(
    'refuses widget.theme.color %j',
    async (color) => {
      const t = await newTenant();
      const r = await request('PUT', admin('/settings'), {
        token: t.ownerToken,
        body: { config: { widget: { theme: { color } } } },
      });
      expectProblem(r, 400, 'VALIDATION_ERROR');
      expect(r.body.errors[0].path).toBe('config.widget.theme.color');
    },
  );

  it('takes #rgb and #rrggbb', async () => {
    const t = await newTenant();
    for (const color of ['#fff', '#1A2b3C']) {
      expect(
        (
          await request('PUT', admin('/settings'), {
            token: t.ownerToken,
            body: { config: { widget: { theme: { color } } } },
          })
        ).status,
      ).toBe(200);
    }
  });
});
