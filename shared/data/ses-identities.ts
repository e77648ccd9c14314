import { GetEmailIdentityCommand, SESv2Client } from '@aws-sdk/client-sesv2';
import { config } from '#shared/core/config.ts';
import { logger } from '#shared/core/log.ts';

// Whether a tenant's sending address may be used: SES's verification of its identity (the address
// itself, or its domain). The local runtime has no SES: its stand-in calls the domains named in
// LOCAL_SES_VERIFIED_DOMAINS (comma-separated; default the inbound domain) verified and any other
// pending, as a domain just added to SES is until its DNS records are seen.

/** `verified`: SES sends from it. `pending`: added, its DNS records not seen yet. `failed`: SES gave up looking. `missing`: not added to SES. `unknown`: SES did not answer. */
export type SenderStatus = 'verified' | 'pending' | 'failed' | 'missing' | 'unknown';

let client: SESv2Client | undefined;

function localStatus(domain: string): SenderStatus {
  const listed = (process.env.LOCAL_SES_VERIFIED_DOMAINS ?? config.inboundDomain)
    .split(',')
    .map((d) => d.trim().toLowerCase())
    .filter(Boolean);
  return listed.includes(domain) ? 'verified' : 'pending';
}

async function identityStatus(identity: string): Promise<SenderStatus> {
  client ??= new SESv2Client({ region: config.region });
  try {
    const r = await client.send(new GetEmailIdentityCommand({ EmailIdentity: identity }), {
      abortSignal: AbortSignal.timeout(2000),
    });
    if (r.VerifiedForSendingStatus) return 'verified';
    const s = r.VerificationStatus;
    return s === 'FAILED' ? 'failed' : s === 'NOT_STARTED' ? 'missing' : 'pending';
  } catch (e) {
    if ((e as { name?: string }).name === 'NotFoundException') return 'missing';
    logger.warn('SES did not say whether the sending identity is verified', { error: (e as Error).message });
    return 'unknown';
  }
}

/** The verification of `address`: the address's own identity when it has one, else its domain's. */
export async function senderStatus(address: string): Promise<SenderStatus> {
  const domain = address.split('@')[1]!.toLowerCase();
  if (config.smtpRelay) return localStatus(domain);
  const own = await identityStatus(address);
  return own === 'verified'
    ? own
    : identityStatus(domain).then((d) => (d === 'missing' && own !== 'missing' ? own : d));
}
