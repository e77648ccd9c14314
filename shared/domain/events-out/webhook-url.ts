import { BlockList, isIP } from 'node:net';

// Addresses a webhook may not name as an IP literal (SSRF): loopback, private, link-local,
// documentation, and other non-public ranges. Resolved addresses are checked again at delivery.
const blocked = new BlockList();
const loopback = new BlockList();
for (const [net, prefix] of [
  ['0.0.0.0', 8], ['10.0.0.0', 8], ['100.64.0.0', 10], ['169.254.0.0', 16], ['172.16.0.0', 12], ['192.0.0.0', 24],
  ['192.0.2.0', 24], ['192.168.0.0', 16], ['198.18.0.0', 15], ['198.51.100.0', 24], ['203.0.113.0', 24], ['224.0.0.0', 3],
] as const) blocked.addSubnet(net, prefix, 'ipv4');
for (const [net, prefix] of [
  ['::', 128], ['100::', 64], ['2001:db8::', 32], ['3fff::', 20],
  ['fc00::', 7], ['fe80::', 10], ['fec0::', 10], ['ff00::', 8],
] as const) blocked.addSubnet(net, prefix, 'ipv6');
loopback.addSubnet('127.0.0.0', 8, 'ipv4');
loopback.addAddress('::1', 'ipv6');

/** Null when `raw` is an acceptable webhook URL, else why not. */
export function checkWebhookUrl(raw: string, allowLoopback = false): string | null {
  let url: URL;
  try { url = new URL(raw); } catch { return 'must be a valid URL'; }
  // Plain http only for the loopback receivers that the local runtime may allow.
  if (url.protocol !== 'https:' && !(url.protocol === 'http:' && allowLoopback)) return 'must use https';
  if (url.username || url.password) return 'must not contain credentials';
  // WHATWG parsing already normalised IPv4 forms such as 0x7f.1 or 2130706433 to dotted quads.
  const host = url.hostname.replace(/^\[|\]$/g, '').replace(/\.$/, '').toLowerCase();
  const kind = isIP(host);
  // IPv4 embedded in IPv6 (mapped, NAT64) is refused outright: BlockList would match such a subnet
  // against every IPv4 address, and a public service has no need to be named this way.
  if (kind === 6 && /^(::ffff:|64:ff9b::)/.test(host)) return 'must not use an IPv4-mapped IPv6 address';
  const isLoopback = host === 'localhost' || host.endsWith('.localhost') || (kind !== 0 && loopback.check(host, kind === 4 ? 'ipv4' : 'ipv6'));
  if (isLoopback) return allowLoopback ? null : 'must not point at localhost or a loopback address';
  if (url.protocol !== 'https:') return 'must use https';
  if (kind !== 0 && blocked.check(host, kind === 4 ? 'ipv4' : 'ipv6')) return 'must not point at a private, link-local or reserved address';
  return null;
}
