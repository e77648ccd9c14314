import { observed } from '#shared/edge/observe.ts';
import { runPurge } from '#shared/domain/tenants/deletion.ts';

// Invoked by its schedule (shared/edge/triggers.ts: scheduledJobs).
export const handler = observed(async () => runPurge());
