import { describe, expect, it } from 'vitest';
import { checkWebhookUrl } from '#shared/domain/events-out/webhook-url.ts';

describe('checkWebhookUrl', () => {
  it.each([
    'https://hooks.example.com/x',
    'https://8.8.8.8/hook',
    'https://[2606:4700:4700::1111]/h',
    'https://example.com:8443/a?b=c',
    'https://172.32.0.1/',
    'https://11.0.0.1/',
  ])('accepts %s', (u) => expect(checkWebhookUrl(u)).toBeNull());

  it.each([
    'http://hooks.example.com/x',
    'ftp://example.com',
    'not a url',
    'https://localhost/x',
    'https://LOCALHOST./x',
    'https://api.localhost/',
    'https://127.0.0.1/',
    'https://127.1.2.3:8443/',
    'https://0x7f.1/',
    'https://2130706433/',
    'https://[::1]/',
    'https://0.0.0.0/',
    'https://10.1.2.3/',
    'https://172.16.0.1/',
    'https://172.31.255.255/',
    'https://192.168.1.1/',
    'https://169.254.169.254/latest/meta-data',
    'https://100.64.0.1/',
    'https://192.0.2.5/',
    'https://198.51.100.7/',
    'https://203.0.113.9/',
    'https://[fe80::1]/',
    'https://[fc00::1]/',
    'https://[fd12:3456::1]/',
    'https://[2001:db8::1]/',
    'https://[::ffff:127.0.0.1]/',
    'https://[::ffff:10.0.0.1]/',
    'https://[::]/',
    'https://user:pass@example.com/',
    'https://[::127.0.0.1]/',
    'https://[::a9fe:a9fe]/',
    'https://[::8.8.8.8]/',
    'https://[64:ff9b::a9fe:a9fe]/',
    'https://[2002:a9fe:a9fe::1]/',
    'https://[2001:0:4136:e378:8000:63bf:3fff:fdd2]/',
    'https://[::ffff:8.8.8.8]/',
    'http://127.0.0.1:4401@169.254.169.254/x',
  ])('refuses %s', (u) => expect(checkWebhookUrl(u)).not.toBeNull());

  it('lets loopback through only when allowed, and never private ranges', () => {
    expect(checkWebhookUrl('https://127.0.0.1:9999/h', true)).toBeNull();
    expect(checkWebhookUrl('https://localhost:9999/h', true)).toBeNull();
    expect(checkWebhookUrl('https://[::1]/h', true)).toBeNull();
    expect(checkWebhookUrl('https://10.0.0.1/h', true)).not.toBeNull();
    // Plain http only for loopback receivers, and only when allowed (docs/API.md, Events and integrations).
    expect(checkWebhookUrl('http://127.0.0.1:4000/h', true)).toBeNull();
    expect(checkWebhookUrl('http://127.0.0.1/h', false)).not.toBeNull();
    expect(checkWebhookUrl('http://hooks.example.com/h', true)).toBe('must use https');
  });
});
