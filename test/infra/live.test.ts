import { existsSync } from 'node:fs';
import { App } from 'aws-cdk-lib';
import { describe, expect, it } from 'vitest';
import { DEFAULTS, readConfig } from '#infra/config.ts';
import { ENTRY_METADATA } from '#infra/function.ts';
import { LIVE_ACCESS_LOG_FIELDS, LIVE_STAGE } from '#infra/live.ts';
import { SupportStack } from '#infra/stack.ts';
import { routes } from '#shared/edge/routes/index.ts';
import { EXPORT_QUEUE, eventDispatcher, LIVE_PATH, liveRoutes } from '#shared/edge/triggers.ts';
import { declared, handlerPath, logicalId, ofType, refId, STUB_ENTRY, synth } from './synth.ts';

const s = synth();
const triggers = [...liveRoutes.map((r) => r.handler), eventDispatcher.handler];

describe('functions of the live channel and the stream', () => {
  it('are built from the modules their declarations name, one each', () => {
    const asked: string[] = [];
    const app = new App({ context: { 'aws:cdk:bundling-stacks': [] } });
    new SupportStack(app, 'SupportAssistant', {
      config: readConfig(app.node),
      entryOf: (h) => {
        asked.push(h);
        return STUB_ENTRY;
      },
    });
    expect(asked.filter((h) => triggers.includes(h)).sort()).toEqual([...triggers].sort());
    expect(asked.sort()).toEqual(
      [
        ...declared.map((d) => d.handler),
        'events/deliver',
        'events/index-content',
        'email/receive',
        'email/send',
        'email/events',
        EXPORT_QUEUE.handler,
      ].sort(),
    );
  });

  it('have their handler modules on disk, and the template builds each from functions/<handler>.ts', () => {
    expect(triggers.filter((h) => !existsSync(handlerPath(h)))).toEqual([]);
    for (const h of triggers) expect(s.resources[fnId(h)]!.Metadata[ENTRY_METADATA], h).toBe(`functions/${h}.ts`);
  });
});
const liveApiId = logicalId(s, s.stack.live.webSocketApi);
const fnId = (handler: string) => logicalId(s, s.stack.functions.get(handler)!.fn);
const envOf = (handler: string) => s.resources[fnId(handler)]!.Properties.Environment.Variables;

/** `{ Fn::Join: ['', [...parts]] }` with Refs and GetAtts written as `<id>`, for readable comparisons. */
const joined = (v: any): string =>
  v['Fn::Join'][1].map((p: any) => (typeof p === 'string' ? p : `<${refId(p) ?? JSON.stringify(p)}>`)).join('');

describe('live channel: a WebSocket API with one function per declared route', () => {
  const apis = ofType(s, 'AWS::ApiGatewayV2::Api').filter(([, a]) => a.Properties.ProtocolType === 'WEBSOCKET');
  const socketRoutes = ofType(s, 'AWS::ApiGatewayV2::Route').filter(([, r]) => refId(r.Properties.ApiId) === liveApiId);

  it('is one WebSocket API with exactly the $connect, $disconnect and typing routes', () => {
    expect(apis.map(([id]) => id)).toEqual([liveApiId]);
    expect(socketRoutes.map(([, r]) => r.Properties.RouteKey).sort()).toEqual(['$connect', '$disconnect', 'typing']);
    expect(liveRoutes.map((r) => r.routeKey).sort()).toEqual(['$connect', '$disconnect', 'typing']);
    // A frame's route is its `action`.
    expect(apis[0]![1].Properties.RouteSelectionExpression).toBe('$request.body.action');
  });

  it('sends each route to its own function through a Lambda proxy integration, with no authorizer', () => {
    expect(
      ofType(s, 'AWS::ApiGatewayV2::Authorizer').filter(([, a]) => refId(a.Properties.ApiId) === liveApiId),
    ).toEqual([]);
    const seen = new Set<string>();
    for (const decl of liveRoutes) {
      const [[, route]] = socketRoutes.filter(([, r]) => r.Properties.RouteKey === decl.routeKey) as [[string, any]];
      // The connect function authenticates the upgrade itself (widget key + conversation, or a live ticket).
      expect(route.Properties.AuthorizationType, decl.routeKey).toBe('NONE');
      expect(route.Properties.AuthorizerId).toBeUndefined();
      const target = route.Properties.Target['Fn::Join'][1];
      expect(target[0]).toBe('integrations/');
      const integration = s.resources[refId(target[1])!]!;
      expect(integration.Type).toBe('AWS::ApiGatewayV2::Integration');
      expect(refId(integration.Properties.ApiId)).toBe(liveApiId);
      expect(integration.Properties.IntegrationType).toBe('AWS_PROXY');
      expect(joined(integration.Properties.IntegrationUri)).toContain(`<${fnId(decl.handler)}>/invocations`);
      seen.add(fnId(decl.handler));

      expect(s.resources[fnId(decl.handler)]!.Properties.Description).toBe(`WebSocket ${decl.routeKey}`);
    }
    expect(seen.size).toBe(liveRoutes.length);
  });

  it('lets API Gateway invoke each socket function for its own route of this API only', () => {
    for (const decl of liveRoutes) {
      const perms = ofType(s, 'AWS::Lambda::Permission').filter(
        ([, p]) => refId(p.Properties.FunctionName) === fnId(decl.handler),
      );
      expect(perms, decl.handler).toHaveLength(1);
      expect(joined(perms[0]![1].Properties.SourceArn)).toMatch(
        new RegExp(`:<${liveApiId}>/\\*${decl.routeKey.replace(/\$/g, '\\$')}$`),
      );
    }
  });

  it('has a stage named after the live path, throttled and access-logged like the HTTP API', () => {
    const stages = ofType(s, 'AWS::ApiGatewayV2::Stage').filter(([, st]) => refId(st.Properties.ApiId) === liveApiId);
    expect(stages).toHaveLength(1);
    const stage = stages[0]![1].Properties;
    expect(LIVE_PATH.endsWith(`/${LIVE_STAGE}`)).toBe(true);
    expect(stage.StageName).toBe(LIVE_STAGE);
    expect(stage.AutoDeploy).toBe(true);
    expect(stage.DefaultRouteSettings).toEqual({
      ThrottlingRateLimit: DEFAULTS.throttle.rateLimit,
      ThrottlingBurstLimit: DEFAULTS.throttle.burstLimit,
    });
    const dest = s.resources[refId(stage.AccessLogSettings.DestinationArn)!]!;
    expect(dest.Type).toBe('AWS::Logs::LogGroup');
    expect(dest.Properties.RetentionInDays).toBe(DEFAULTS.logRetentionDays);
    expect(JSON.parse(stage.AccessLogSettings.Format)).toEqual(LIVE_ACCESS_LOG_FIELDS);
    for (const field of ['requestId', 'eventType', 'routeKey', 'connectionId', 'status', 'integrationError']) {
      expect(LIVE_ACCESS_LOG_FIELDS[field as keyof typeof LIVE_ACCESS_LOG_FIELDS], field).toMatch(/^\$context\./);
    }
    const throttled = (ctx: Record<string, unknown>) => {
      const t = synth(ctx);
      return t.resources[logicalId(t, t.stack.live.stage)]!.Properties.DefaultRouteSettings;
    };
    expect(throttled({ throttleRate: '25', throttleBurst: '50' })).toEqual({
      ThrottlingRateLimit: 25,
      ThrottlingBurstLimit: 50,
    });
  });

  it('gives its wss:// URL to every chat function as LIVE_URL, and as the LiveUrl output', () => {
    const url = `wss://<${liveApiId}>.execute-api.<AWS::Region>.<AWS::URLSuffix>/${LIVE_STAGE}`;
    const widgetRoutes = routes.filter((r) => r.auth === 'widget');
    expect(widgetRoutes.length).toBeGreaterThan(0);
    for (const r of widgetRoutes) expect(joined(envOf(r.handler).LIVE_URL), r.handler).toBe(url);
    expect(joined(s.outputs.LiveUrl!.Value)).toBe(url);
  });

  it('stays on its execute-api URL with a custom domain (API Gateway maps no WebSocket API beside an HTTP API)', () => {
    const t = synth({
      domainName: 'api.example.com',
      certificateArn: 'arn:aws:acm:eu-west-1:123456789012:certificate/11111111-2222-3333-4444-555555555555',
    });
    const mappings = ofType(t, 'AWS::ApiGatewayV2::ApiMapping');
    expect(mappings.map(([, m]) => refId(m.Properties.ApiId))).toEqual([logicalId(t, t.stack.api.httpApi)]);
    expect(t.resources[logicalId(t, t.stack.live.webSocketApi)]!.Properties.DisableExecuteApiEndpoint).toBeUndefined();
    expect(joined(t.outputs.LiveUrl!.Value)).toMatch(/^wss:\/\/<\w+>\.execute-api\./);
  });

  it('gives the socket functions the table, and the management API only to those that post (typing)', () => {
    for (const decl of liveRoutes) {
      const vars = envOf(decl.handler);
      expect(refId(vars.TABLE_NAME)).toBe(logicalId(s, s.stack.data.table));
      expect('LIVE_ENDPOINT' in vars, decl.handler).toBe(Boolean(decl.manageConnections));
    }
    expect(liveRoutes.filter((r) => r.manageConnections).map((r) => r.handler)).toEqual(['live/typing']);
  });
});

describe('event pipeline: the table stream, filtered to event items, into the dispatcher', () => {
  const mappings = ofType(s, 'AWS::Lambda::EventSourceMapping').filter(([, m]) =>
    JSON.stringify(m.Properties.EventSourceArn).includes('StreamArn'),
  );
  const mapping = mappings[0]![1].Properties;
  const deadLettersId = logicalId(s, s.stack.events.deadLetters);

  it('is the only mapping on the table stream: the dispatcher', () => {
    expect(mappings).toHaveLength(1);
    expect(refId(mapping.FunctionName)).toBe(fnId(eventDispatcher.handler));
    expect(mapping.EventSourceArn).toEqual({ 'Fn::GetAtt': [logicalId(s, s.stack.data.table), 'StreamArn'] });
    expect(s.resources[fnId(eventDispatcher.handler)]!.Properties.Description).toBe('DynamoDB stream: event items');
  });

  it("passes only what the declaration's filter matches: inserted event items", () => {
    expect(mapping.FilterCriteria.Filters).toHaveLength(1);
    expect(JSON.parse(mapping.FilterCriteria.Filters[0].Pattern)).toEqual(eventDispatcher.filter);
    expect(JSON.parse(mapping.FilterCriteria.Filters[0].Pattern)).toEqual({
      eventName: ['INSERT'],
      dynamodb: { NewImage: { type: { S: ['event'] } } },
    });
  });

  it('batches, retries and reports failures as declared, bisecting a failing batch', () => {
    expect(mapping.BatchSize).toBe(eventDispatcher.batchSize);
    expect(mapping.MaximumRetryAttempts).toBe(eventDispatcher.retryAttempts);
    expect(mapping.FunctionResponseTypes).toEqual(['ReportBatchItemFailures']);
    expect(mapping.BisectBatchOnFunctionError).toBe(true);
    // From the oldest record still in the stream: a new mapping misses no event written before it.
    expect(mapping.StartingPosition).toBe('TRIM_HORIZON');
  });

  it('sends records that fail every retry to an encrypted, TLS-only dead-letter queue', () => {
    expect(mapping.DestinationConfig).toEqual({ OnFailure: { Destination: { 'Fn::GetAtt': [deadLettersId, 'Arn'] } } });
    const queue = s.resources[deadLettersId]!;
    expect(queue.Type).toBe('AWS::SQS::Queue');
    expect(queue.Properties.SqsManagedSseEnabled).toBe(true);
    expect(queue.Properties.MessageRetentionPeriod).toBe(14 * 24 * 3600);
    const policies = ofType(s, 'AWS::SQS::QueuePolicy').filter(([, p]) =>
      p.Properties.Queues.some((q: unknown) => refId(q) === deadLettersId),
    );
    expect(policies).toHaveLength(1);
    expect(policies[0]![1].Properties.PolicyDocument.Statement).toEqual([
      {
        Action: 'sqs:*',
        Effect: 'Deny',
        Principal: { AWS: '*' },
        Condition: { Bool: { 'aws:SecureTransport': 'false' } },
        Resource: { 'Fn::GetAtt': [deadLettersId, 'Arn'] },
      },
    ]);
  });

  it('gives the dispatcher the table and the management endpoint of its own WebSocket stage', () => {
    const vars = envOf(eventDispatcher.handler);
    expect(refId(vars.TABLE_NAME)).toBe(logicalId(s, s.stack.data.table));
    expect(joined(vars.LIVE_ENDPOINT)).toBe(
      `https://<${liveApiId}>.execute-api.<AWS::Region>.<AWS::URLSuffix>/${LIVE_STAGE}`,
    );
    expect('LIVE_URL' in vars).toBe(false);
    expect('CURSOR_SECRET' in vars).toBe(false);
  });
});
