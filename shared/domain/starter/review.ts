import { auditRepo } from '#shared/data/audit.ts';
import { intentsRepo, type Intent } from '#shared/data/intents.ts';
import { TxConditionFailed } from '#shared/data/tx.ts';
import { logger } from '#shared/core/log.ts';
import { LEGACY_STARTER_REPLIES } from '#shared/domain/starter/legacy.ts';
import { clock } from '#shared/core/clock.ts';

// The starter review, run once per tenant, lazily: the first time its intents are read (the chat's
// model or the admin list) without the review mark. Intents still holding a starter reply of a
// tenant onboarded before starter content stopped stating facts are marked as starter content (so
// the team's articles answer before them), and the ones that state facts are disabled and flagged
// for the team to review, audited with actor `system`. Lazy rather than a deploy-time job: finding
// every tenant would take a Scan, and a tenant nobody reads has no customer to mislead.

const SYSTEM = { type: 'system' as const, id: 'starter-review' };

/** What the review changes: unedited starter intents marked, the fact-stating enabled ones disabled. */
export function reviewChanges(intents: Intent[], at: string): Array<{ before: Intent; after: Intent }> {
  return intents.flatMap((before) => {
    const legacy = LEGACY_STARTER_REPLIES[before.name];
    if (!legacy || legacy.response !== before.response || before.starter) return [];
    const disable = legacy.statesFacts && before.enabled;
    const after: Intent = {
      ...before,
      starter: true,
      ...(disable ? { enabled: false, needsReview: true } : {}),
      updatedAt: at > before.updatedAt ? at : new Date(Date.parse(before.updatedAt) + 1).toISOString(),
    };
    return [{ before, after }];
  });
}

/** The tenant's intents after the review (run now if it never ran), with their hit counts. */
export async function reviewedIntents(tenantId: string): Promise<Array<Intent & { hitCount: number }>> {
  const { intents, reviewed } = await intentsRepo.listReviewed(tenantId);
  if (reviewed) return intents;
  const at = clock.iso();
  const changes = reviewChanges(intents, at);
  const audits = changes
    .filter((c) => c.before.enabled !== c.after.enabled)
    .map(({ after }) =>
      auditRepo.tx.put(tenantId, {
        category: 'intent',
        action: 'intent.updated',
        actor: SYSTEM,
        target: { type: 'intent', id: after.id },
        changes: { enabled: { from: true, to: false } },
        createdAt: at,
      }),
    );
  try {
    await intentsRepo.review(tenantId, changes, audits, at);
    if (audits.length) logger.info('starter review disabled intents', { tenantId, disabled: audits.length });
  } catch (e) {
    // Another request reviewed it first, or an intent moved meanwhile: read what is there now.
    if (!(e instanceof TxConditionFailed)) throw e;
    return (await intentsRepo.listReviewed(tenantId)).intents;
  }
  const after = new Map(changes.map((c) => [c.after.id, c.after]));
  return intents.map((i) => ({ ...(after.get(i.id) ?? i), hitCount: i.hitCount }));
}
