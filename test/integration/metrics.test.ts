import { randomUUID } from 'node:crypto';
import { pathToFileURL } from 'node:url';
import type { SQSEvent } from 'aws-lambda';
import { afterAll, beforeAll, beforeEach, describe, expect, inject, it, vi } from 'vitest';
import type { LocalRuntime } from '../../local/runtime.ts';
import { fetchServed, onboard } from './client.ts';
import { pendingDelivery } from '../fixtures/deliveries.ts';

// The metric lines (CloudWatch embedded metric format) and the log lines of real handler
// invocations, read from this process's stdout and stderr: an own runtime with metrics on, on the run's
// DynamoDB Local, whose handlers run here.

interface Emf {
  _aws: {
    Timestamp: number;
    CloudWatchMetrics: Array<{
      Namespace: string;
      Dimensions: string[][];
      Metrics: Array<{ Name: string; Unit: string }>;
    }>;
  };
  service: string;
  [metric: string]: unknown;
}

let rt: LocalRuntime;
let lines: Record<string, unknown>[] = [];
const restore: Array<() => void> = [];
const metricsBefore = process.env.POWERTOOLS_METRICS_DISABLED;

beforeAll(async () => {
  // Before the handlers (and the metrics instance) load: the runtime turns metrics off by default.
  process.env.POWERTOOLS_METRICS_DISABLED = 'false';
  // Metrics go to stdout; the logger writes errors and warnings to stderr.
  for (const stream of [process.stdout, process.stderr]) {
    const write = stream.write.bind(stream);
    stream.write = ((chunk: unknown, ...rest: unknown[]) => {
      let parsed = false;
      for (const line of String(chunk).split('\n')) {
        if (!line.startsWith('{')) continue;
        try {
          lines.push(JSON.parse(line) as Record<string, unknown>);
          parsed = true;
        } catch {
          /* not a JSON line */
        }
      }
      // JSON lines (logs, metrics) are read here, not printed into the test log.
      return parsed ? true : (write as (...a: unknown[]) => boolean)(chunk, ...rest);
    }) as typeof stream.write;
    restore.push(() => {
      stream.write = write;
    });
  }
  const { startLocalRuntime } = await import('../../local/runtime.ts');
  rt = await startLocalRuntime({
    tableName: `metrics-${process.pid}`,
    dynamodbEndpoint: inject('dynamodbEndpoint'),
    stream: false,
    indexer: false,
  });
}, 60_000);

afterAll(async () => {
  for (const r of restore) r();
  await rt?.stop();
  if (metricsBefore === undefined) delete process.env.POWERTOOLS_METRICS_DISABLED;
  else process.env.POWERTOOLS_METRICS_DISABLED = metricsBefore;
});

beforeEach(() => {
  lines = [];
});

const emf = () => lines.filter((l): l is Emf => typeof l._aws === 'object');
/** The metric lines that name `metric`, each checked for the declared namespace and `service` dimension. */
function published(metric: string): Emf[] {
  const found = emf().filter((l) => l._aws.CloudWatchMetrics.some((d) => d.Metrics.some((m) => m.Name === metric)));
  for (const l of found) {
    const d = l._aws.CloudWatchMetrics[0]!;
    expect(d.Namespace).toBe('SupportAssistant');
    expect(d.Dimensions).toEqual([['service']]);
    expect(l.service).toBe('support-assistant');
    expect(d.Metrics.find((m) => m.Name === metric)?.Unit).toBe('Count');
  }
  return found;
}

async function call(method: string, path: string, o: { token?: string; widgetKey?: string; body?: unknown } = {}) {
  const res = await fetchServed(rt.url + path, {
    method,
    headers: {
      ...(o.body !== undefined ? { 'content-type': 'application/json' } : {}),
      ...(o.token ? { authorization: `Bearer ${o.token}` } : {}),
      ...(o.widgetKey ? { 'x-widget-key': o.widgetKey } : {}),
    },
    ...(o.body !== undefined ? { body: JSON.stringify(o.body) } : {}),
  });
  return { status: res.status, body: (await res.json().catch(() => null)) as any };
}

/** Right after the in-process outage test, DynamoDB Local once stalled for over 5 s under onboarding on CI. */
async function tenant() {
  const token = await rt.idp.token({ sub: `metrics-${randomUUID()}`, email: 'metrics@example.com' });
  return { token, ...(await onboard(rt.url, token, 'Metrics Shop')) };
}

describe('metrics in embedded metric format, one line per invocation', () => {
  it('a chat message answered by an intent counts AnswerIntent; one nobody can answer counts AnswerFallback', async () => {
    const t = await tenant();
    lines = [];
    const hello = await call('POST', '/api/v1/chat/message', {
      widgetKey: t.widgetKey,
      body: { message: 'hello there' },
    });
    expect(hello.body.metadata.intentDetected).toBe('greeting');
    expect(published('AnswerIntent')).toHaveLength(1);
    expect(published('AnswerFallback')).toHaveLength(0);
    const [line] = published('AnswerIntent');
    expect(line!.AnswerIntent).toBe(1);

    lines = [];
    const lost = await call('POST', '/api/v1/chat/message', {
      widgetKey: t.widgetKey,
      body: { message: 'zq xv wk pj', conversationId: hello.body.conversationId },
    });
    expect(lost.body.metadata.intentDetected).toBe('fallback');
    expect(published('AnswerFallback')).toHaveLength(1);
    expect(published('AnswerIntent')).toHaveLength(0);
  });

  it('a chat message answered from an article counts AnswerArticle', async () => {
    const t = await tenant();
    const article = {
      title: 'Gift wrapping and gift messages',
      questions: ['Can you gift wrap my order?'],
      body: 'Tick *This is a gift* at checkout to have each item wrapped in recycled paper. Your message is printed on a card.',
    };
    expect((await call('POST', '/api/v1/admin/articles', { token: t.token, body: article })).status).toBe(201);
    lines = [];
    const r = await call('POST', '/api/v1/chat/message', {
      widgetKey: t.widgetKey,
      body: { message: 'can you wrap the present in recycled paper with a card?' },
    });
    expect(r.body.metadata.intentDetected).toBe('knowledge_base');
    expect(published('AnswerArticle')).toHaveLength(1);
    expect(published('AnswerIntent')).toHaveLength(0);
    expect(published('AnswerFallback')).toHaveLength(0);
  });

  it('an escalation counts Escalations once; asking again for the same open ticket does not', async () => {
    const t = await tenant();
    const first = await call('POST', '/api/v1/chat/message', { widgetKey: t.widgetKey, body: { message: 'hi' } });
    lines = [];
    const body = { conversationId: first.body.conversationId, reason: 'a person, please' };
    expect((await call('POST', '/api/v1/chat/escalate', { widgetKey: t.widgetKey, body })).status).toBe(200);
    expect(published('Escalations')).toHaveLength(1);
    lines = [];
    expect((await call('POST', '/api/v1/chat/escalate', { widgetKey: t.widgetKey, body })).status).toBe(200);
    expect(published('Escalations')).toHaveLength(0);
  });

  it('a request answered 500 counts ServerErrors, and its error log line carries the Lambda context', async () => {
    const t = await tenant();
    const { tenantsRepo } = await import('#shared/data/tenants.ts');
    const spy = vi.spyOn(tenantsRepo, 'get').mockRejectedValueOnce(new TypeError('a bug'));
    lines = [];
    const r = await call('GET', '/api/v1/chat/widget', { widgetKey: t.widgetKey });
    spy.mockRestore();
    expect(r.status).toBe(500);
    expect(published('ServerErrors')).toHaveLength(1);
    const error = lines.find((l) => l.message === 'unhandled error');
    expect(error).toMatchObject({ level: 'ERROR', function_name: 'chat-get-widget', route: 'GET /api/v1/chat/widget' });
    expect(typeof error!.function_request_id).toBe('string');
    expect(typeof error!.cold_start).toBe('boolean');

    lines = [];
    expect((await call('GET', '/api/v1/chat/widget', { widgetKey: t.widgetKey })).status).toBe(200);
    expect(published('ServerErrors')).toHaveLength(0);
    // An invocation that counted nothing publishes nothing, and the library's warning about it stays out of the logs.
    expect(emf()).toEqual([]);
    expect(lines.filter((l) => String(l.message).startsWith('No application metrics'))).toEqual([]);
    // A 4xx is the caller's: no count.
    expect((await call('GET', '/api/v1/chat/widget', { widgetKey: 'wk_not-a-key' })).status).toBe(401);
    expect(published('ServerErrors')).toHaveLength(0);
  });

  it('a delivery that can no longer be made counts DeliveriesFailed, from the queue consumer', async () => {
    const t = await tenant();
    const { deliveriesRepo } = await import('#shared/data/deliveries.ts');
    const { lambdaContext } = await import('../../local/events.ts');
    const deliveryId = `dlv_${'0'.repeat(26)}`;
    const integrationId = 'int_gone';
    await deliveriesRepo.create(t.tenantId, pendingDelivery(deliveryId, integrationId, `evt_${'0'.repeat(26)}`));
    const { handler } = (await import(pathToFileURL(`${process.cwd()}/functions/events/deliver.ts`).href)) as {
      handler: (e: SQSEvent, c: unknown) => Promise<{ batchItemFailures: unknown[] }>;
    };
    const record = {
      messageId: randomUUID(),
      receiptHandle: 'r',
      body: JSON.stringify({ tenantId: t.tenantId, integrationId, deliveryId, run: 1 }),
      attributes: { ApproximateReceiveCount: '1' },
      messageAttributes: {},
      md5OfBody: '',
      eventSource: 'aws:sqs',
      eventSourceARN: 'arn',
      awsRegion: 'local',
    } as unknown as SQSEvent['Records'][number];
    lines = [];
    const out = await handler({ Records: [record] }, lambdaContext({ handler: 'events/deliver' }));
    expect(out.batchItemFailures).toEqual([]);
    expect((await deliveriesRepo.get(t.tenantId, integrationId, deliveryId))?.status).toBe('failed');
    expect(published('DeliveriesFailed')).toHaveLength(1);
  });
});
