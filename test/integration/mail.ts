import { createHmac } from 'node:crypto';
import { createTransport } from 'nodemailer';
import { inject } from 'vitest';

// Mail for the tests: a client of a local runtime's SMTP server, the verdicts a passing sender
// carries, and a site's signature of a visitor.

/** A client of the SMTP server at `port` (by default the shared runtime's). */
export const smtp = (port: number = inject('smtpPort')) =>
  createTransport({ host: '127.0.0.1', port, secure: false, ignoreTLS: true });

/** A sender that passes SPF, DKIM and DMARC (the local server trusts this header in tests). */
export const PASS = { 'X-Local-Verdicts': 'spf=pass dkim=pass dmarc=pass' };

/** What a site signs a visitor's user id or address with: HMAC-SHA256 keyed by the identity secret, hex. */
export const hmac = (secret: string, s: string) => createHmac('sha256', secret).update(s).digest('hex');
