import { Metrics, MetricUnit } from '@aws-lambda-powertools/metrics';
import { logger } from './log.ts';
import { type METRIC, METRICS_NAMESPACE, METRICS_SERVICE } from './metric-names.ts';

export type MetricName = (typeof METRIC)[keyof typeof METRIC];

// One instance per container. The edge publishes what an invocation counted when it ends (the
// logMetrics middleware), as one embedded-metric-format line on stdout that CloudWatch turns into
// metrics. The library warns on every invocation that counted nothing (most requests): its own
// warnings go through a child logger at ERROR.
export const metrics = new Metrics({
  namespace: METRICS_NAMESPACE,
  serviceName: METRICS_SERVICE,
  logger: logger.createChild({ logLevel: 'ERROR' }),
});

/** Counts one occurrence in this invocation. Any layer may count; the edge publishes. */
export const count = (name: MetricName) => {
  metrics.addMetric(name, MetricUnit.Count, 1);
};
