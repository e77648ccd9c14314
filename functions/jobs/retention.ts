import { observed } from '#shared/edge/observe.ts';
import { runRetention } from '#shared/domain/privacy/retention.ts';

// Invoked by the daily schedule (shared/edge/triggers.ts: scheduledJobs).
export const handler = observed(async () => runRetention());
