import { existsSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { ENTRY_METADATA } from '#infra/function.ts';
import { eventDispatcher, EXPORT_QUEUE, INDEX_QUEUE, scheduledJobs } from '#shared/edge/triggers.ts';
import { routes } from '#shared/edge/routes/index.ts';
import { routeKey } from '#shared/edge/route.ts';
import { declared, handlerPath, logicalId, ofType, refId, serviceOfType, synth } from './synth.ts';

describe('routes: one API route and one function per row of the route table', () => {
  const s = synth();
  const httpApiId = logicalId(s, s.stack.api.httpApi);
  const apiRoutes = ofType(s, 'AWS::ApiGatewayV2::Route').filter(([, r]) => refId(r.Properties.ApiId) === httpApiId);
  const functions = serviceOfType(s, 'AWS::Lambda::Function');
  const authorizers = ofType(s, 'AWS::ApiGatewayV2::Authorizer');

  it('has exactly as many routes as the table has rows, and one function per declaration', () => {
    expect(routes.length).toBeGreaterThan(20);
    expect(apiRoutes).toHaveLength(routes.length);
    // The route table's, the live channel's and the stream trigger's, and the delivery worker, the indexer, the export function and the email channel's, which no route invokes.
    expect(functions).toHaveLength(s.stack.functions.size);
    expect(s.stack.functions.size).toBe(declared.length + 6);
    expect([...s.stack.functions.keys()].filter((h) => !declared.some((d) => d.handler === h)).sort()).toEqual([
      'email/events',
      'email/receive',
      'email/send',
      'events/deliver',
      'events/index-content',
      'jobs/export-tenant',
    ]);
    expect(new Set(routes.map(routeKey)).size).toBe(routes.length);
  });

  it('maps every row to its route, its own integration and function, and its auth', () => {
    expect(authorizers).toHaveLength(1);
    const [jwtId, jwt] = authorizers[0]!;
    expect(jwt.Properties.AuthorizerType).toBe('JWT');

    const seenFunctions = new Set<string>();
    let checked = 0;
    for (const row of routes) {
      const key = routeKey(row);
      const matches = apiRoutes.filter(([, r]) => r.Properties.RouteKey === key);
      expect(matches, key).toHaveLength(1);
      const route = matches[0]![1].Properties;

      if (row.auth === 'jwt') {
        expect(route.AuthorizationType, key).toBe('JWT');
        expect(refId(route.AuthorizerId), key).toBe(jwtId);
      } else {
        expect(route.AuthorizationType, key).toBe('NONE');
        expect(route.AuthorizerId, key).toBeUndefined();
      }

      // Target is "integrations/<Ref>"
      const target = route.Target['Fn::Join'][1];
      expect(target[0]).toBe('integrations/');
      const integration = s.resources[refId(target[1])!]!;
      expect(integration.Type).toBe('AWS::ApiGatewayV2::Integration');
      expect(integration.Properties.IntegrationType).toBe('AWS_PROXY');
      expect(integration.Properties.PayloadFormatVersion).toBe('2.0');

      const fnId = refId(integration.Properties.IntegrationUri)!;
      const fn = s.resources[fnId]!;
      expect(fn.Type).toBe('AWS::Lambda::Function');
      expect(seenFunctions.has(fnId), `${key} shares a function`).toBe(false);
      seenFunctions.add(fnId);
      expect(fn.Metadata?.[ENTRY_METADATA], key).toBe(`functions/${row.handler}.ts`);
      expect(fn.Properties.Description).toBe(key);
      checked++;
    }
    expect(checked).toBe(routes.length);
    expect(seenFunctions.size).toBe(routes.length);
  });

  it('has a handler module on disk for every row', () => {
    const missing = routes.filter((r) => !existsSync(handlerPath(r.handler))).map((r) => `functions/${r.handler}.ts`);
    expect(missing).toEqual([]);
  });

  it('lets API Gateway invoke each function from its own route only', () => {
    const all = ofType(s, 'AWS::Lambda::Permission');
    // SES invokes the receive function (its receipt rule), from this account only.
    const ses = all.filter(([, p]) => p.Properties.Principal === 'ses.amazonaws.com');
    expect(ses.map(([, p]) => refId(p.Properties.FunctionName))).toEqual([logicalId(s, s.stack.email.receive.fn)]);
    expect(ses[0]![1].Properties.SourceAccount).toEqual({ Ref: 'AWS::AccountId' });
    const permissions = all.filter(([, p]) => p.Properties.Principal !== 'ses.amazonaws.com');
    // The stream trigger needs none: its event source mapping invokes it with its own role. A scheduled job's rule may invoke it.
    expect(permissions).toHaveLength(declared.filter((d) => d.kind !== 'stream').length);
    const principals = permissions.map(([, p]) => p.Properties.Principal as string);
    expect(principals.filter((p) => p === 'events.amazonaws.com')).toHaveLength(
      declared.filter((d) => d.kind === 'schedule').length,
    );
    expect(principals.filter((p) => p === 'apigateway.amazonaws.com')).toHaveLength(
      declared.filter((d) => d.kind === 'http' || d.kind === 'socket').length,
    );
    for (const [, p] of permissions) expect(p.Properties.Action).toBe('lambda:InvokeFunction');
  });

  it('runs each scheduled job at its declared rate, as its own function', () => {
    const rules = ofType(s, 'AWS::Events::Rule');
    expect(rules).toHaveLength(scheduledJobs.length);
    for (const job of scheduledJobs) {
      const fnId = logicalId(s, s.stack.functions.get(job.handler)!.fn);
      const rule = rules.find(([, r]) => refId(r.Properties.Targets[0].Arn) === fnId);
      expect(rule?.[1].Properties.ScheduleExpression, job.handler).toBe(
        job.everyMinutes === 24 * 60 ? 'rate(1 day)' : `rate(${job.everyMinutes} minutes)`,
      );
    }
  });

  it('configures every function the same way: Node 24 on ARM64, traced, JSON logs to its own log group', () => {
    const logGroups = new Set<string>();
    for (const [id, fn] of functions) {
      const p = fn.Properties;
      expect(p.Runtime, id).toBe('nodejs24.x');
      expect(p.Architectures, id).toEqual(['arm64']);
      expect(p.Handler, id).toBe('index.handler');
      // API routes answer within 10 s; the delivery function waits up to 15 s on receivers; receiving
      // (attachments to store) and sending mail (SES or SMTP) get 30 s; the indexer embeds for
      // minutes, the export function writes for up to 15; a scheduled job has its declared timeout. Memory: test/infra/memory.test.ts.
      const job = scheduledJobs.find(
        (j) => s.stack.functions.get(j.handler) && id === logicalId(s, s.stack.functions.get(j.handler)!.fn),
      );
      const deliver = id === logicalId(s, s.stack.deliveries.fn.fn);
      const indexer = id === logicalId(s, s.stack.indexing.fn.fn);
      const exporter = id === logicalId(s, s.stack.exports.fn.fn);
      const dispatcher = id === logicalId(s, s.stack.functions.get(eventDispatcher.handler)!.fn);
      const mail = [s.stack.email.receive, s.stack.email.send].some((f) => id === logicalId(s, f.fn));
      expect(p.Timeout, id).toBe(
        deliver || mail
          ? 30
          : indexer
            ? INDEX_QUEUE.functionTimeoutSeconds
            : exporter
              ? EXPORT_QUEUE.functionTimeoutSeconds
              : dispatcher
                ? eventDispatcher.functionTimeoutSeconds
                : job
                  ? job.timeoutSeconds
                  : 10,
      );
      expect(p.TracingConfig, id).toEqual({ Mode: 'Active' });
      expect(p.LoggingConfig.LogFormat, id).toBe('JSON');
      const lg = refId(p.LoggingConfig.LogGroup)!;
      expect(s.resources[lg]!.Type).toBe('AWS::Logs::LogGroup');
      expect(s.resources[lg]!.Properties.RetentionInDays).toBe(30);
      logGroups.add(lg);
      expect(p.Environment.Variables.NODE_OPTIONS).toBe('--enable-source-maps');
      expect(p.Environment.Variables.POWERTOOLS_SERVICE_NAME).toBe('support-assistant');
    }
    expect(logGroups.size).toBe(s.stack.functions.size);
  });

  it('gives TABLE_NAME and CURSOR_SECRET to table functions, KMS_KEY_ID to kms functions, LIVE_URL to chat functions only', () => {
    let checked = 0;
    for (const row of routes) {
      const f = s.stack.functions.get(row.handler)!;
      const vars = s.resources[logicalId(s, f.fn)]!.Properties.Environment.Variables;
      expect('TABLE_NAME' in vars, row.handler).toBe(row.table !== 'none');
      expect('CURSOR_SECRET' in vars, row.handler).toBe(row.table !== 'none');
      expect('KMS_KEY_ID' in vars, row.handler).toBe(row.kms === true);
      expect('LIVE_URL' in vars, row.handler).toBe(row.auth === 'widget');
      expect('LIVE_ENDPOINT' in vars, row.handler).toBe(false);
      if (row.table !== 'none') expect(refId(vars.TABLE_NAME)).toBe(logicalId(s, s.stack.data.table));
      checked++;
    }
    expect(checked).toBe(routes.length);
    expect(routes.some((r) => r.auth === 'widget')).toBe(true);
    expect(routes.some((r) => r.kms)).toBe(true);
    expect(routes.some((r) => r.table === 'none')).toBe(true);
  });
});
