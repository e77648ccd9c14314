import { App, Stack } from 'aws-cdk-lib';
import { describe, expect, it } from 'vitest';
import { ACCESS_LOG_FIELDS } from '#infra/api.ts';
import { DEFAULTS, readConfig } from '#infra/config.ts';
import { ALARM_THRESHOLDS } from '#infra/monitoring.ts';
import { METRIC, METRICS_NAMESPACE, METRICS_SERVICE } from '#shared/core/metric-names.ts';
import { count, metrics } from '#shared/core/metrics.ts';
import { routes } from '#shared/edge/routes/index.ts';
import { logicalId, ofType, refId, serviceOfType, synth, type Synth } from './synth.ts';

const DOMAIN = {
  domainName: 'api.example.com',
  certificateArn: 'arn:aws:acm:eu-west-1:123456789012:certificate/11111111-2222-3333-4444-555555555555',
};

/** The HTTP API (the stack also has the live channel's WebSocket API). */
const httpApi = (s: Synth) => s.resources[logicalId(s, s.stack.api.httpApi)]!;

describe('API stage: access logs and throttling', () => {
  it('writes one JSON object per request to a log group with retention', () => {
    const s = synth();
    const stage = s.resources[logicalId(s, s.stack.api.stage)]!;
    expect(stage.Properties.StageName).toBe('$default');
    expect(stage.Properties.AutoDeploy).toBe(true);
    const dest = refId(stage.Properties.AccessLogSettings.DestinationArn)!;
    expect(s.resources[dest]!.Type).toBe('AWS::Logs::LogGroup');
    expect(s.resources[dest]!.Properties.RetentionInDays).toBe(DEFAULTS.logRetentionDays);
    const format = JSON.parse(stage.Properties.AccessLogSettings.Format);
    expect(format).toEqual(ACCESS_LOG_FIELDS);
    for (const field of ['requestId', 'routeKey', 'status', 'responseLatency', 'integrationError', 'authorizerError']) {
      expect(format[field], field).toMatch(/^\$context\./);
    }
  });

  it('throttles by default and takes limits from context', () => {
    const limits = (ctx: Record<string, unknown>) => {
      const s = synth(ctx);
      return s.resources[logicalId(s, s.stack.api.stage)]!.Properties.DefaultRouteSettings;
    };
    expect(limits({})).toEqual({
      ThrottlingRateLimit: DEFAULTS.throttle.rateLimit,
      ThrottlingBurstLimit: DEFAULTS.throttle.burstLimit,
    });
    expect(limits({ throttleRate: '25', throttleBurst: '50' })).toEqual({
      ThrottlingRateLimit: 25,
      ThrottlingBurstLimit: 50,
    });
  });

  it('takes log retention from context', () => {
    const s = synth({ logRetentionDays: '90' });
    // One per function, and the access logs of the HTTP API and of the live channel.
    expect(serviceOfType(s, 'AWS::Logs::LogGroup')).toHaveLength(s.stack.functions.size + 2);
    // And the CDN's deployment log group, and the receipt rule set's activation's two.
    const groups = ofType(s, 'AWS::Logs::LogGroup');
    expect(groups).toHaveLength(s.stack.functions.size + 5);
    for (const [, g] of groups) expect(g.Properties.RetentionInDays).toBe(90);
  });
});

describe('alarms', () => {
  const s = synth();
  const alarms = ofType(s, 'AWS::CloudWatch::Alarm');
  const byId = (prefix: string) => alarms.filter(([id]) => id.startsWith(`Monitoring${prefix}`));

  it('has the API 5xx-rate alarm as metric math over 5xx and Count of this API', () => {
    const [[, a]] = byId('Api5xxRate') as [[string, any]];
    expect(a.Properties.Threshold).toBe(ALARM_THRESHOLDS.api5xxPercent);
    const expr = a.Properties.Metrics.find((m: any) => m.Expression);
    expect(expr.Expression).toBe('IF(requests > 0, 100 * FILL(errors, 0) / requests, 0)');
    const names = a.Properties.Metrics.filter((m: any) => m.MetricStat).map((m: any) => [
      m.Id,
      m.MetricStat.Metric.MetricName,
    ]);
    expect(names.sort()).toEqual([
      ['errors', '5xx'],
      ['requests', 'Count'],
    ]);
    const apiDim = a.Properties.Metrics.find((m: any) => m.Id === 'errors').MetricStat.Metric.Dimensions.find(
      (d: any) => d.Name === 'ApiId',
    );
    expect(refId(apiDim.Value)).toBe(logicalId(s, s.stack.api.httpApi));
  });

  it('has one Lambda errors alarm per function', () => {
    const errors = alarms.filter(
      ([, a]) => a.Properties.MetricName === 'Errors' && a.Properties.Namespace === 'AWS/Lambda',
    );
    expect(errors).toHaveLength(s.stack.functions.size);
    const fns = new Set(errors.map(([, a]) => refId(a.Properties.Dimensions[0].Value)));
    expect(fns.size).toBe(s.stack.functions.size);
    for (const f of s.stack.functions.values()) expect(fns.has(logicalId(s, f.fn))).toBe(true);
  });

  // Each stack alarms on its own functions' throttles (infra/monitoring.ts FunctionAlarms).
  const stacksOfFunctions = new Map<Stack, number>();
  for (const f of s.stack.functions.values())
    stacksOfFunctions.set(Stack.of(f), (stacksOfFunctions.get(Stack.of(f)) ?? 0) + 1);
  const throttleAlarms = [...stacksOfFunctions.values()].reduce((sum, k) => sum + Math.ceil(k / 10), 0);

  it('covers every function with a throttles alarm in its own stack (metric math, at most 10 metrics each)', () => {
    const throttles = alarms.filter(([id]) => /FunctionAlarmsThrottles\d/.test(id));
    expect(throttles).toHaveLength(throttleAlarms);
    expect(stacksOfFunctions.size).toBeGreaterThan(2);
    const covered = throttles.flatMap(([, a]) => {
      const stats = a.Properties.Metrics.filter((m: any) => m.MetricStat);
      expect(stats.length).toBeLessThanOrEqual(10);
      expect(a.Properties.Metrics.find((m: any) => m.Expression).Expression).toBe('SUM(FILL(METRICS(), 0))');
      return stats.map((m: any) => {
        expect(m.MetricStat.Metric.MetricName).toBe('Throttles');
        return refId(m.MetricStat.Metric.Dimensions[0].Value);
      });
    });
    expect(covered).toHaveLength(s.stack.functions.size);
    expect(new Set(covered).size).toBe(s.stack.functions.size);
    for (const f of s.stack.functions.values()) expect(covered).toContain(logicalId(s, f.fn));
  });

  it('alarms on the failure metrics the functions emit, by the names shared/core/metric-names.ts declares', () => {
    for (const [id, name, threshold] of [
      ['ServerErrors', METRIC.serverErrors, ALARM_THRESHOLDS.serverErrors],
      ['DeliveriesFailed', METRIC.deliveriesFailed, ALARM_THRESHOLDS.deliveriesFailed],
    ] as const) {
      const [[, a]] = byId(id) as [[string, any]];
      expect(a.Properties, id).toMatchObject({
        Namespace: METRICS_NAMESPACE,
        MetricName: name,
        Statistic: 'Sum',
        Period: 300,
        Dimensions: [{ Name: 'service', Value: METRICS_SERVICE }],
        Threshold: threshold,
        ComparisonOperator: 'GreaterThanOrEqualToThreshold',
        TreatMissingData: 'notBreaching',
      });
      // The line a function writes when it counts one: the same namespace, metric and dimensions.
      count(name);
      const line = metrics.serializeMetrics();
      metrics.clearMetrics();
      const [directive] = line._aws.CloudWatchMetrics;
      expect(directive!.Namespace).toBe(a.Properties.Namespace);
      expect(directive!.Metrics.map((m) => m.Name)).toEqual([a.Properties.MetricName]);
      expect(directive!.Dimensions).toEqual([a.Properties.Dimensions.map((d: any) => d.Name)]);
      for (const d of a.Properties.Dimensions) expect((line as Record<string, unknown>)[d.Name]).toBe(d.Value);
    }
  });

  it('watches DynamoDB throttling on the table and every index', () => {
    const [[, events]] = byId('TableThrottleEvents') as [[string, any]];
    const metrics = events.Properties.Metrics.filter((m: any) => m.MetricStat).map((m: any) => {
      const dims = Object.fromEntries(m.MetricStat.Metric.Dimensions.map((d: any) => [d.Name, d.Value]));
      return `${m.MetricStat.Metric.MetricName}@${dims.GlobalSecondaryIndexName ?? 'table'}`;
    });
    expect(metrics.sort()).toEqual(
      ['table', ...s.stack.data.indexNames]
        .flatMap((n) => [`ReadThrottleEvents@${n}`, `WriteThrottleEvents@${n}`])
        .sort(),
    );
    const [[, requests]] = byId('TableThrottledRequests') as [[string, any]];
    const ops = requests.Properties.Metrics.filter((m: any) => m.MetricStat).map((m: any) => {
      expect(m.MetricStat.Metric.MetricName).toBe('ThrottledRequests');
      return m.MetricStat.Metric.Dimensions.find((d: any) => d.Name === 'Operation').Value;
    });
    expect(ops).toContain('TransactWriteItems');
    expect(ops).not.toContain('Scan');
  });

  it("alarms on the first record in the event stream's dead-letter queue", () => {
    const [[, a]] = byId('DeadLettersEvents') as [[string, any]];
    expect(a.Properties).toMatchObject({
      Namespace: 'AWS/SQS',
      MetricName: 'ApproximateNumberOfMessagesVisible',
      Statistic: 'Maximum',
      Period: 300,
      Threshold: ALARM_THRESHOLDS.deadLetters,
      ComparisonOperator: 'GreaterThanOrEqualToThreshold',
    });
    expect(ALARM_THRESHOLDS.deadLetters).toBe(1);
    const queue = a.Properties.Dimensions.find((d: any) => d.Name === 'QueueName').Value;
    expect(queue).toEqual({ 'Fn::GetAtt': [logicalId(s, s.stack.events.deadLetters), 'QueueName'] });
  });

  it('has no other alarms, and none with actions unless a topic is given', () => {
    const n = s.stack.functions.size;
    // API 5xx, errors per function, throttles, the two table alarms, the six dead-letter queues
    // (events, deliveries, indexing, exports, outgoing email, SES's events), the two failure metrics.
    expect(alarms).toHaveLength(1 + n + throttleAlarms + 2 + 6 + 2);
    for (const [, a] of alarms) expect(a.Properties.AlarmActions).toBeUndefined();
    const withTopic = ofType(
      synth({ alarmTopicArn: 'arn:aws:sns:eu-west-1:123456789012:alarms' }),
      'AWS::CloudWatch::Alarm',
    );
    expect(withTopic).toHaveLength(alarms.length);
    for (const [, a] of withTopic)
      expect(a.Properties.AlarmActions).toEqual(['arn:aws:sns:eu-west-1:123456789012:alarms']);
  });
});

describe('custom domain', () => {
  it('has none by default', () => {
    const s = synth();
    expect(ofType(s, 'AWS::ApiGatewayV2::DomainName')).toHaveLength(0);
    expect(ofType(s, 'AWS::ApiGatewayV2::ApiMapping')).toHaveLength(0);
    expect(httpApi(s).Properties.DisableExecuteApiEndpoint).toBe(false);
  });

  it('maps the stage to the custom domain and closes the execute-api endpoint', () => {
    const s = synth(DOMAIN);
    const domains = ofType(s, 'AWS::ApiGatewayV2::DomainName');
    expect(domains).toHaveLength(1);
    expect(domains[0]![1].Properties).toMatchObject({
      DomainName: DOMAIN.domainName,
      DomainNameConfigurations: [{ CertificateArn: DOMAIN.certificateArn, EndpointType: 'REGIONAL' }],
    });
    const [[, mapping]] = ofType(s, 'AWS::ApiGatewayV2::ApiMapping') as [[string, any]];
    expect(refId(mapping.Properties.DomainName)).toBe(domains[0]![0]);
    expect(refId(mapping.Properties.ApiId)).toBe(logicalId(s, s.stack.api.httpApi));
    expect(httpApi(s).Properties.DisableExecuteApiEndpoint).toBe(true);
    const outputs = s.template.toJSON().Outputs;
    expect(outputs.ApiUrl.Value).toBe(`https://${DOMAIN.domainName}/`);
    expect(outputs.DomainTarget).toBeDefined();
  });
});

describe('CORS (docs/API.md, Cross-origin requests)', () => {
  const cors = httpApi(synth()).Properties.CorsConfiguration;

  it('answers preflight for any origin, without credentials', () => {
    expect(cors.AllowOrigins).toEqual(['*']);
    expect(cors.AllowCredentials).toBe(false);
    // Preflight is API Gateway's own answer: no OPTIONS route reaches a function.
    const routeKeys = ofType(synth(), 'AWS::ApiGatewayV2::Route').map(([, r]) => String(r.Properties.RouteKey));
    expect(routeKeys.filter((k) => k.startsWith('OPTIONS') || k.startsWith('ANY') || k === '$default')).toEqual([]);
  });

  it('allows exactly the methods of the route table and the request headers the API reads', () => {
    expect([...cors.AllowMethods].sort()).toEqual([...new Set(routes.map((r) => r.method))].sort());
    expect(new Set(routes.map((r) => r.method)).size).toBeGreaterThanOrEqual(4);
    expect([...cors.AllowHeaders].sort()).toEqual(['authorization', 'content-type', 'idempotency-key', 'x-widget-key']);
  });

  it('exposes the request id and Retry-After', () => {
    expect([...cors.ExposeHeaders].sort()).toEqual(['retry-after', 'x-request-id']);
  });

  it('is the same whatever the context: the former corsOrigins context is refused, not ignored', () => {
    expect(httpApi(synth(DOMAIN)).Properties.CorsConfiguration).toEqual(cors);
    expect(() => readConfig(new App({ context: { corsOrigins: 'https://a.com' } }).node)).toThrow(
      /corsOrigins is no longer used/,
    );
  });
});

describe('auth: Cognito by default, or an external OIDC issuer', () => {
  const authorizer = (ctx: Record<string, unknown>) =>
    ofType(synth(ctx), 'AWS::ApiGatewayV2::Authorizer')[0]![1].Properties.JwtConfiguration;

  it('creates a user pool and app clients; the authorizer trusts the pool as issuer and the client ids as audience', () => {
    const s = synth();
    const pools = ofType(s, 'AWS::Cognito::UserPool');
    const clients = ofType(s, 'AWS::Cognito::UserPoolClient');
    expect(pools).toHaveLength(1);
    // The API's own client and the dashboard's (infra/dashboard.ts).
    expect(clients).toHaveLength(2);
    const jwt = authorizer({});
    expect(jwt.Audience.map(refId).sort()).toEqual(clients.map(([id]) => id).sort());
    const issuer = jwt.Issuer['Fn::Join'][1];
    expect(issuer[0]).toBe('https://cognito-idp.');
    expect(refId(issuer.at(-1))).toBe(pools[0]![0]);
    expect(pools[0]![1].Properties.MfaConfiguration).toBe('ON');
    for (const [, c] of clients) expect(c.Properties.GenerateSecret).toBe(false);
    const outputs = s.template.toJSON().Outputs;
    expect(Object.keys(outputs).sort()).toEqual([
      'ApiUrl',
      'DashboardUrl',
      'IssuerUrl',
      'LiveUrl',
      'LoginDomain',
      'TableName',
      'UserPoolClientId',
      'UserPoolId',
      'WidgetUrl',
    ]);
  });

  it('uses the given issuer and audience instead, with no user pool', () => {
    const ctx = { issuerUrl: 'https://login.example.com/realms/support', audience: 'dashboard,cli' };
    const s = synth(ctx);
    expect(ofType(s, 'AWS::Cognito::UserPool')).toHaveLength(0);
    expect(ofType(s, 'AWS::Cognito::UserPoolClient')).toHaveLength(0);
    expect(authorizer(ctx)).toEqual({ Issuer: ctx.issuerUrl, Audience: ['dashboard', 'cli'] });
    expect(Object.keys(s.template.toJSON().Outputs).sort()).toEqual([
      'ApiUrl',
      'DashboardUrl',
      'IssuerUrl',
      'LiveUrl',
      'TableName',
      'WidgetUrl',
    ]);
  });

  it('offers the hosted-UI code flow only when callback URLs are given', () => {
    const client = (ctx: Record<string, unknown>) => {
      const s = synth(ctx);
      return s.resources[logicalId(s, s.stack.auth.client!)]!.Properties;
    };
    expect(client({}).AllowedOAuthFlowsUserPoolClient).toBe(false);
    const withUi = client({ callbackUrls: 'https://app.example.com/callback' });
    expect(withUi.AllowedOAuthFlows).toEqual(['code']);
    expect(withUi.CallbackURLs).toEqual(['https://app.example.com/callback']);
  });
});

describe('context validation', () => {
  const read = (context: Record<string, unknown>) => () => readConfig(new App({ context }).node);
  it.each([
    [{ issuerUrl: 'https://idp.example.com' }, /go together/],
    [{ audience: 'x' }, /go together/],
    [{ issuerUrl: 'http://idp.example.com', audience: 'x' }, /https/],
    [{ domainName: 'api.example.com' }, /go together/],
    [{ throttleRate: '-1' }, /positive integer/],
  ])('refuses %j', (context, message) => {
    expect(read(context)).toThrow(message);
  });
  it('refuses a retention CloudWatch does not offer', () => {
    expect(() => synth({ logRetentionDays: '31' })).toThrow(/logRetentionDays/);
  });
});
