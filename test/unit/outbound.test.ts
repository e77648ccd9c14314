import { createServer } from 'node:http';
import { describe, expect, it } from 'vitest';
import { postJson, resolveChecked, RefusedDestination } from '#shared/domain/events-out/outbound.ts';
import { refusedAddress } from '#shared/domain/events-out/webhook-url.ts';
import { checkSecret, newSecret, signedHeaders } from '#shared/domain/events-out/webhook-signing.ts';
import { Webhook } from 'standardwebhooks';

// Delivery-time safety: which resolved addresses may be called, and that the request goes nowhere else.

describe('resolved addresses', () => {
  it('refuses loopback, private, link-local, documentation, unspecified, multicast and IPv4-carrying IPv6 forms', () => {
    const refused = [
      '127.0.0.1',
      '127.8.9.1',
      '10.1.2.3',
      '172.16.0.1',
      '172.31.255.255',
      '192.168.1.1',
      '169.254.169.254',
      '100.64.0.1',
      '0.0.0.0',
      '224.0.0.1',
      '239.255.255.250',
      '255.255.255.255',
      '192.0.2.10',
      '198.51.100.7',
      '203.0.113.9',
      '198.18.0.1',
      '240.0.0.1',
      '::1',
      '::',
      'fe80::1',
      'fc00::1',
      'fd12:3456::1',
      'ff02::1',
      '2001:db8::1',
      'fec0::1',
      '3fff::1',
      '::ffff:127.0.0.1',
      '::ffff:10.0.0.1',
      '::ffff:169.254.169.254',
      '64:ff9b::a00:1',
      '2002:a00:1::',
      '2001::1',
      // IPv4 inside IPv6 is refused whatever it carries (IPv4-compatible ::/96, mapped, NAT64, 6to4, Teredo).
      '::127.0.0.1',
      '::a9fe:a9fe',
      '::8.8.8.8',
      '::ffff:93.184.216.34',
      '64:ff9b::808:808',
      '2002:808:808::1',
      '2001:0:4136:e378::1',
    ];
    for (const a of refused) expect(refusedAddress(a, false), a).not.toBeNull();
    for (const a of ['93.184.216.34', '8.8.8.8', '1.1.1.1', '2606:4700:4700::1111', '2a00:1450:4001:80b::200e']) {
      expect(refusedAddress(a, false), a).toBeNull();
    }
  });

  it('lets loopback through only when allowed, and nothing else that is private', () => {
    expect(refusedAddress('127.0.0.1', true)).toBeNull();
    expect(refusedAddress('::1', true)).toBeNull();
    expect(refusedAddress('::ffff:127.0.0.1', true)).not.toBeNull();
    expect(refusedAddress('::127.0.0.1', true)).not.toBeNull();
    expect(refusedAddress('10.0.0.1', true)).not.toBeNull();
    expect(refusedAddress('169.254.169.254', true)).not.toBeNull();
  });

  it('checks every address a name resolves to', async () => {
    await expect(resolveChecked('localhost', false)).rejects.toBeInstanceOf(RefusedDestination);
    expect((await resolveChecked('localhost', true)).length).toBeGreaterThan(0);
    await expect(resolveChecked('no-such-host.invalid', false)).rejects.toThrow(/could not resolve/);
  });
});

describe('postJson', () => {
  it('sends nothing to a loopback receiver unless allowed, never plain http elsewhere, and nothing past 1 KiB', async () => {
    let hits = 0;
    const server = createServer((_req, res) => {
      hits++;
      res.writeHead(200);
      res.end('y'.repeat(5000));
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    const port = (server.address() as { port: number }).port;
    try {
      const opts = { allowLoopback: false, timeoutMs: 2000 };
      for (const url of [
        `http://127.0.0.1:${port}/`,
        `https://127.0.0.1:${port}/`,
        `http://localhost:${port}/`,
        `https://[::ffff:127.0.0.1]:${port}/`,
      ]) {
        const r = await postJson(url, '{}', {}, opts);
        expect(r.ok, url).toBe(false);
        expect(r.error, url).toMatch(/refused address|loopback/);
      }
      expect(hits).toBe(0);
      const ok = await postJson(`http://127.0.0.1:${port}/`, '{}', {}, { allowLoopback: true, timeoutMs: 2000 });
      expect(ok).toMatchObject({ ok: true, status: 200, error: null });
      expect(ok.body.length).toBeLessThanOrEqual(1024);
      expect(hits).toBe(1);
    } finally {
      server.closeAllConnections();
      server.close();
    }
  });
});

describe('kept-alive connections', () => {
  // A receiver closes an idle kept-alive connection (Node.js after 5 s) just as the next request
  // goes out on it: the request never reached the receiver, so it is sent once more on a new one.
  it('sends again on a new connection when a reused one is closed before any answer', async () => {
    const served = new WeakSet<object>();
    let answered = 0;
    let dropped = 0;
    const server = createServer((req, res) => {
      if (served.has(req.socket)) {
        dropped++;
        req.socket.destroy();
        return;
      }
      served.add(req.socket);
      answered++;
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end('{}');
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    const url = `http://127.0.0.1:${(server.address() as { port: number }).port}/`;
    const opts = { allowLoopback: true, timeoutMs: 2000 };
    try {
      expect(await postJson(url, '{}', {}, opts)).toMatchObject({ ok: true, status: 200 });
      expect(await postJson(url, '{}', {}, opts)).toMatchObject({ ok: true, status: 200 });
      expect({ answered, dropped }).toEqual({ answered: 2, dropped: 1 });
    } finally {
      server.closeAllConnections();
      server.close();
    }
  });

  it('does not send again when a new connection fails', async () => {
    let seen = 0;
    const server = createServer((req) => {
      seen++;
      req.socket.destroy();
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    const url = `http://127.0.0.1:${(server.address() as { port: number }).port}/`;
    try {
      const r = await postJson(url, '{}', {}, { allowLoopback: true, timeoutMs: 2000 });
      expect(r).toMatchObject({ ok: false, status: null, error: 'request failed: ECONNRESET' });
      expect(seen).toBe(1);
    } finally {
      server.closeAllConnections();
      server.close();
    }
  });
});

describe('webhook secrets and signatures', () => {
  it('makes secrets of the specification form and refuses others', () => {
    const s = newSecret();
    expect(checkSecret(s)).toBeNull();
    expect(checkSecret(`whsec_${Buffer.alloc(24).toString('base64')}`)).toBeNull();
    expect(checkSecret(`whsec_${Buffer.alloc(64).toString('base64')}`)).toBeNull();
    for (const bad of [
      '',
      'whsec_',
      'secret',
      `whsec_${Buffer.alloc(23).toString('base64')}`,
      `whsec_${Buffer.alloc(65).toString('base64')}`,
      'whsec_not base64!',
      `${Buffer.alloc(32).toString('base64')}`,
      'whsec_plaintext_SECRET_value_9876',
    ]) {
      expect(checkSecret(bad), bad).not.toBeNull();
    }
  });

  it('signs as the standardwebhooks verifier expects', () => {
    const secret = newSecret();
    const body = JSON.stringify({ type: 'ping', timestamp: new Date().toISOString(), data: {} });
    const headers = signedHeaders(secret, 'evt_01J00000000000000000000000', new Date(), body);
    expect(headers['webhook-signature']).toMatch(/^v1,[A-Za-z0-9+/]+=*$/);
    expect(new Webhook(secret).verify(body, headers)).toEqual(JSON.parse(body));
  });
});
