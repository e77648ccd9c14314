import { DELIVERY_QUEUE, eventDispatcher, INDEX_QUEUE } from '#shared/edge/triggers.ts';
import { ENCODER_MODEL_FOLDER } from '#infra/function.ts';
import { describe, expect, it } from 'vitest';
import { MAX_ATTEMPTS, RETRY_SCHEDULE } from '#shared/domain/events-out/deliveries.ts';
import { MAX_VISIBILITY_SECONDS } from '#shared/data/delivery-queue.ts';
import { routes } from '#shared/edge/routes/index.ts';
import { logicalId, ofType, refId, synth } from './synth.ts';

// Events out: the delivery queue, its dead-letter queue and alarm, and the delivery function's wiring.

describe('delivery queue', () => {
  const s = synth();
  const queueId = logicalId(s, s.stack.deliveries.queue);
  const dlqId = logicalId(s, s.stack.deliveries.deadLetters);
  const fnId = logicalId(s, s.stack.deliveries.fn.fn);

  it('has a queue with a dead-letter queue after more receives than a delivery has attempts, both encrypted and TLS-only', () => {
    const queues = ofType(s, 'AWS::SQS::Queue');
    // The delivery queue, its dead letters, the event stream's dead letters, the index queue and its dead letters,
    // the export queue and its dead letters, and the email channel's two queues and their dead letters.
    const email = s.stack.email;
    expect(queues.map(([id]) => id).sort()).toEqual(
      [
        dlqId,
        queueId,
        logicalId(s, s.stack.events.deadLetters),
        logicalId(s, s.stack.indexing.queue),
        logicalId(s, s.stack.indexing.deadLetters),
        logicalId(s, s.stack.exports.queue),
        logicalId(s, s.stack.exports.deadLetters),
        ...[email.outQueue, email.outDeadLetters, email.eventsQueue, email.eventsDeadLetters].map((q) =>
          logicalId(s, q),
        ),
      ].sort(),
    );
    const q = s.resources[queueId]!.Properties;
    expect(refId(q.RedrivePolicy.deadLetterTargetArn)).toBe(dlqId);
    // Each attempt of the deliveries ahead in its group's batch is a receive of a message too.
    expect(q.RedrivePolicy.maxReceiveCount).toBeGreaterThan(MAX_ATTEMPTS * DELIVERY_QUEUE.batchSize);
    // FIFO, one group per endpoint, deduplicated per group, with high-throughput limits; its dead letters FIFO too.
    expect(q).toMatchObject({
      FifoQueue: true,
      ContentBasedDeduplication: false,
      DeduplicationScope: 'messageGroup',
      FifoThroughputLimit: 'perMessageGroupId',
    });
    expect(s.resources[dlqId]!.Properties.FifoQueue).toBe(true);
    expect(q.SqsManagedSseEnabled).toBe(true);
    expect(s.resources[dlqId]!.Properties.SqsManagedSseEnabled).toBe(true);
    // A crashed batch comes back only after the function has surely stopped; messages outlive the whole schedule.
    expect(q.VisibilityTimeout).toBeGreaterThanOrEqual(6 * DELIVERY_QUEUE.functionTimeoutSeconds);
    expect(q.MessageRetentionPeriod).toBeGreaterThan(RETRY_SCHEDULE.reduce((a, b) => a + b, 0));
    expect(Math.max(...RETRY_SCHEDULE)).toBeLessThanOrEqual(MAX_VISIBILITY_SECONDS);
    const policies = ofType(s, 'AWS::SQS::QueuePolicy');
    for (const id of [queueId, dlqId]) {
      const p = policies.find(([, x]) => x.Properties.Queues.some((v: unknown) => refId(v) === id));
      expect(JSON.stringify(p?.[1].Properties.PolicyDocument), id).toMatch(/"aws:SecureTransport":"false"/);
    }
  });

  it('alarms on any visible message in the dead-letter queue', () => {
    const alarms = ofType(s, 'AWS::CloudWatch::Alarm').filter(
      ([, a]) => a.Properties.Namespace === 'AWS/SQS' && JSON.stringify(a.Properties.Dimensions).includes(dlqId),
    );
    expect(alarms).toHaveLength(1);
    const a = alarms[0]![1].Properties;
    expect(a.MetricName).toBe('ApproximateNumberOfMessagesVisible');
    expect(a.Dimensions).toEqual([{ Name: 'QueueName', Value: { 'Fn::GetAtt': [dlqId, 'QueueName'] } }]);
    expect(a.Threshold).toBe(1);
    expect(a.ComparisonOperator).toBe('GreaterThanOrEqualToThreshold');
  });

  it('feeds the delivery function in batches that report item failures', () => {
    const mappings = ofType(s, 'AWS::Lambda::EventSourceMapping').filter(
      ([, m]) => refId(m.Properties.FunctionName) === fnId,
    );
    expect(mappings).toHaveLength(1);
    const m = mappings[0]![1].Properties;
    expect(refId(m.EventSourceArn)).toBe(queueId);
    expect(refId(m.FunctionName)).toBe(fnId);
    expect(m.FunctionResponseTypes).toEqual(['ReportBatchItemFailures']);
    expect(m.BatchSize).toBe(DELIVERY_QUEUE.batchSize);
  });

  it('gives the delivery function its queue and table, and no test-only setting', () => {
    const vars = s.resources[fnId]!.Properties.Environment.Variables;
    expect(refId(vars.DELIVERY_QUEUE_URL)).toBe(queueId);
    expect(refId(vars.TABLE_NAME)).toBe(logicalId(s, s.stack.data.table));
    expect(refId(vars.KMS_KEY_ID)).toBe(logicalId(s, s.stack.credentialsKey));
    for (const name of ['DELIVERY_TIMEOUT_MS', 'DELIVERY_TIME_SCALE', 'ALLOW_LOOPBACK_WEBHOOKS', 'SQS_ENDPOINT'])
      expect(vars[name], name).toBeUndefined();
    expect(s.resources[fnId]!.Properties.Timeout).toBe(DELIVERY_QUEUE.functionTimeoutSeconds);
  });

  it('gives the queue URL to the routes that queue deliveries only', () => {
    for (const r of routes) {
      const vars = s.resources[logicalId(s, s.stack.functions.get(r.handler)!.fn)]!.Properties.Environment.Variables;
      expect('DELIVERY_QUEUE_URL' in vars, r.handler).toBe(r.queue === true);
    }
    expect(
      ofType(s, 'AWS::Lambda::Function').some(([, f]) =>
        JSON.stringify(f.Properties.Environment ?? {}).includes('ALLOW_LOOPBACK_WEBHOOKS'),
      ),
    ).toBe(false);
  });

  it("links Slack messages to the stack's dashboard, or to the one given", () => {
    const own = s.resources[fnId]!.Properties.Environment.Variables.DASHBOARD_URL;
    expect(own).toEqual({
      'Fn::Join': ['', ['https://', { 'Fn::GetAtt': [logicalId(s, s.stack.dashboard.distribution), 'DomainName'] }]],
    });
    const withDash = synth({ dashboardUrl: 'https://support.example.com' });
    const vars =
      withDash.resources[logicalId(withDash, withDash.stack.deliveries.fn.fn)]!.Properties.Environment.Variables;
    expect(vars.DASHBOARD_URL).toBe('https://support.example.com');
    expect(() => synth({ dashboardUrl: 'http://support.example.com' })).toThrow(/dashboardUrl/);
  });
});

describe('index queue and the indexer', () => {
  const s = synth();
  const queueId = logicalId(s, s.stack.indexing.queue);
  const fnId = logicalId(s, s.stack.indexing.fn.fn);
  const fn = (handler: string) => s.resources[logicalId(s, s.stack.functions.get(handler)!.fn)]!.Properties;

  it("has a dead-letter queue, a visibility timeout above the function's, and feeds the indexer in batches that report item failures", () => {
    const q = s.resources[queueId]!.Properties;
    expect(q.VisibilityTimeout).toBe(INDEX_QUEUE.visibilityTimeoutSeconds);
    expect(q.VisibilityTimeout).toBeGreaterThan(INDEX_QUEUE.functionTimeoutSeconds);
    expect(refId(q.RedrivePolicy.deadLetterTargetArn)).toBe(logicalId(s, s.stack.indexing.deadLetters));
    expect(q.RedrivePolicy.maxReceiveCount).toBe(INDEX_QUEUE.maxReceiveCount);
    const mappings = ofType(s, 'AWS::Lambda::EventSourceMapping').filter(
      ([, m]) => refId(m.Properties.FunctionName) === fnId,
    );
    expect(mappings).toHaveLength(1);
    expect(mappings[0]![1].Properties).toMatchObject({
      BatchSize: INDEX_QUEUE.batchSize,
      FunctionResponseTypes: ['ReportBatchItemFailures'],
    });
  });

  it('gives the queue URL to the dispatcher (which queues tenants) and the indexer (which queues a tenant again), and to no route', () => {
    expect(refId(s.resources[fnId]!.Properties.Environment.Variables.INDEX_QUEUE_URL)).toBe(queueId);
    expect(refId(fn(eventDispatcher.handler).Environment.Variables.INDEX_QUEUE_URL)).toBe(queueId);
    for (const r of routes) expect('INDEX_QUEUE_URL' in fn(r.handler).Environment.Variables, r.handler).toBe(false);
  });

  it('ships the encoder with the functions that embed, and with no other', () => {
    const dir = `/var/task/${ENCODER_MODEL_FOLDER}`;
    expect(s.resources[fnId]!.Properties.Environment.Variables.ENCODER_MODEL_DIR).toBe(dir);
    expect(fn(eventDispatcher.handler).Environment.Variables.ENCODER_MODEL_DIR).toBeUndefined();
    const embedding = routes
      .filter((r) => r.encoder)
      .map((r) => r.handler)
      .sort();
    expect(embedding).toEqual(['admin/nlu-parse', 'chat/send-message']);
    for (const r of routes)
      expect(fn(r.handler).Environment.Variables.ENCODER_MODEL_DIR, r.handler).toBe(r.encoder ? dir : undefined);
  });
});
