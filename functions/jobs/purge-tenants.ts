import { observed } from '#shared/edge/observe.ts';
import { runPurge } from '#shared/domain/privacy/deletion.ts';

// Invoked by its schedule (shared/edge/triggers.ts: scheduledJobs); stops 30 s before its timeout,
// and the next run goes on where it stopped.
export const handler = observed(async (_event: unknown, context) =>
  runPurge(() => context.getRemainingTimeInMillis() > 30_000),
);
