import ipaddr from 'ipaddr.js';
import { config } from '#shared/core/config.ts';

// The one address rule for URLs that tenants choose (webhooks, Slack): used on the URL's IP literal
// when an integration is written, and on every resolved address at delivery (outbound.ts).

/**
 * IPv6 forms that carry an IPv4 address (IPv4-mapped and -translated, NAT64, 6to4, Teredo, and the
 * deprecated IPv4-compatible `::/96`): they can reach an IPv4 host that the IPv4 rule would refuse,
 * and a public service has no need to be named this way.
 */
const EMBEDS_IPV4 = new Set(['ipv4Mapped', 'rfc6145', 'rfc6052', '6to4', 'teredo']);
const ipv4Compatible = (a: ipaddr.IPv6) => a.parts.slice(0, 6).every((p) => p === 0);

/** Why an address may not be called, or null when it may. Loopback passes only when allowed (the local runtime's tests). */
export function refusedAddress(address: string, allowLoopback: boolean): string | null {
  if (!ipaddr.isValid(address)) return `${address} is not an IP address`;
  const ip = ipaddr.parse(address);
  const range = ip.range();
  if (range === 'unicast' && !(ip.kind() === 'ipv6' && ipv4Compatible(ip as ipaddr.IPv6))) return null;
  if (range === 'loopback' && allowLoopback) return null;
  if (
    ip.kind() === 'ipv6' &&
    (EMBEDS_IPV4.has(range) || ipv4Compatible(ip as ipaddr.IPv6)) &&
    range !== 'loopback' &&
    range !== 'unspecified'
  ) {
    return `${address} embeds an IPv4 address (${range === 'unicast' ? 'IPv4-compatible' : range})`;
  }
  return `${address} is a ${range} address`;
}

const isLoopbackName = (host: string) => host === 'localhost' || host.endsWith('.localhost');

/** The URL's host without IPv6 brackets or a trailing dot, lower case. */
export const hostOf = (url: URL) =>
  url.hostname
    .replace(/^\[|\]$/g, '')
    .replace(/\.$/, '')
    .toLowerCase();

/** True when the URL names a loopback host (by name or address). */
export function isLoopbackUrl(url: URL): boolean {
  const host = hostOf(url);
  return isLoopbackName(host) || (ipaddr.isValid(host) && ipaddr.parse(host).range() === 'loopback');
}

/** Null when `raw` is an acceptable webhook URL, else why not. Parsed as the WHATWG URL standard parses it. */
export function checkWebhookUrl(raw: string, allowLoopback = false): string | null {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return 'must be a valid URL';
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') return 'must use https';
  if (url.username || url.password) return 'must not contain credentials';
  // WHATWG parsing already normalised IPv4 forms such as 0x7f.1 or 2130706433 to dotted quads.
  const host = hostOf(url);
  if (isLoopbackUrl(url)) {
    if (!allowLoopback) return 'must not point at localhost or a loopback address';
    // Plain http only for the loopback receivers that the local runtime may allow.
    return null;
  }
  if (url.protocol !== 'https:') return 'must use https';
  if (ipaddr.isValid(host)) {
    const why = refusedAddress(host, false);
    if (why)
      return why.includes('embeds')
        ? 'must not use an IPv6 address that embeds an IPv4 address'
        : 'must not point at a private, link-local or reserved address';
  }
  return null;
}

/**
 * Whether loopback may be called for this URL: only in the local runtime, for every URL when it was
 * started with `--allow-loopback-webhooks`, or for the origins it names (`npm start`'s demo shop).
 */
export function loopbackAllowed(raw: string): boolean {
  if (config.allowLoopbackWebhooks) return true;
  const origins = config.loopbackOrigins;
  if (origins.length === 0) return false;
  try {
    return origins.includes(new URL(raw).origin);
  } catch {
    return false;
  }
}
