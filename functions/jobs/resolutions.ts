import { observed } from '#shared/edge/observe.ts';
import { runResolutions } from '#shared/domain/reports/resolutions.ts';

// Invoked every 10 minutes (shared/edge/triggers.ts: scheduledJobs); EventBridge names the scheduled time.
export const handler = observed(async (event?: { time?: string }) =>
  runResolutions(event?.time ? new Date(event.time) : undefined),
);
