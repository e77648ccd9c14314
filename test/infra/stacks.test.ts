import { Stack } from 'aws-cdk-lib';
import { describe, expect, it } from 'vitest';
import { routeStackOf, routeStacks } from '#infra/areas.ts';
import { routes } from '#shared/edge/routes/index.ts';
import { routeKey, type Route } from '#shared/edge/route.ts';
import { liveRoutes } from '#shared/edge/triggers.ts';
import { logicalId, ofType, refId, synth, type Synth } from './synth.ts';

// CloudFormation refuses a template of more than 500 resources. Every template of the app stays
// at or under 300 today, and at or under 450 with twice the routes.
const LIMIT_TODAY = 300;
const LIMIT_DOUBLED = 450;

// `cdk synth` adds CDK's own metadata resource to each template (version reporting, which these
// test apps leave off): counted too.
const CDK_METADATA = 1;

const sizes = (s: Synth) =>
  Object.fromEntries(
    s.templates.map(({ stack, template }) => [
      stack.node.id,
      Object.keys(template.toJSON().Resources).length + CDK_METADATA,
    ]),
  );

/** Each route again, in the same area and feature: the worst case for the size of each stack. */
const twins: Route[] = routes.map((r) => ({ ...r, path: `${r.path}/twin`, handler: `${r.handler}-twin` }));

describe('stacks: one deployment of a parent stack and nested stacks, none near the resource limit', () => {
  const s = synth();

  it(`keeps every template, nested ones included, at or under ${LIMIT_TODAY} resources`, () => {
    const today = sizes(s);
    expect(Object.keys(today).sort()).toEqual(['SupportAssistant', ...s.stack.nestedStacks.keys()].sort());
    for (const [name, n] of Object.entries(today)) expect(n, name).toBeLessThanOrEqual(LIMIT_TODAY);
    // All of them together would be over the parent's limit: the split is what keeps them under.
    expect(Object.values(today).reduce((a, b) => a + b, 0)).toBeGreaterThan(LIMIT_TODAY);
  });

  it(`stays at or under ${LIMIT_DOUBLED} per template with twice the routes, each twin in its original's stack`, () => {
    const doubled = synth({}, [...routes, ...twins]);
    const httpApiId = logicalId(doubled, doubled.stack.api.httpApi);
    expect(
      ofType(doubled, 'AWS::ApiGatewayV2::Route').filter(([, r]) => refId(r.Properties.ApiId) === httpApiId),
    ).toHaveLength(2 * routes.length);
    const before = sizes(s);
    const after = sizes(doubled);
    // The same stacks, each route stack about twice its size.
    expect(Object.keys(after).sort()).toEqual(Object.keys(before).sort());
    for (const [name, n] of Object.entries(after)) {
      expect(n, name).toBeLessThanOrEqual(LIMIT_DOUBLED);
      if (routeStacks(routes).has(name)) expect(n, name).toBeGreaterThanOrEqual(2 * before[name]! - 2 - CDK_METADATA);
    }
  });

  it("puts each route's function, role, log group, alarms, API route and invoke permission in its area's stack", () => {
    for (const route of routes) {
      const f = s.stack.functions.get(route.handler)!;
      const home = Stack.of(f);
      expect(home.node.id, route.handler).toBe(routeStackOf(route));
      expect(s.stack.nestedStacks.get(home.node.id)).toBe(home);
      const fnId = logicalId(s, f.fn);
      const own = Object.entries(s.templates.find((t) => t.stack === home)!.template.toJSON().Resources) as [
        string,
        any,
      ][];
      const ofFn = (type: string) =>
        own.filter(([, r]) => r.Type === type && JSON.stringify(r.Properties).includes(`"${fnId}"`));
      expect(ofFn('AWS::Lambda::Permission'), route.handler).toHaveLength(1);
      expect(ofFn('AWS::ApiGatewayV2::Integration'), route.handler).toHaveLength(1);
      expect(
        ofFn('AWS::CloudWatch::Alarm').filter(([, a]) => a.Properties.MetricName === 'Errors'),
        route.handler,
      ).toHaveLength(1);
      const integrationId = ofFn('AWS::ApiGatewayV2::Integration')[0]![0];
      expect(
        own
          .filter(
            ([, r]) =>
              r.Type === 'AWS::ApiGatewayV2::Route' && refId(r.Properties.Target['Fn::Join'][1][1]) === integrationId,
          )
          .map(([, r]) => r.Properties.RouteKey),
        route.handler,
      ).toEqual([routeKey(route)]);
      for (const c of [f.role, f.logGroup]) expect(Stack.of(c), route.handler).toBe(home);
    }
    for (const route of liveRoutes) expect(Stack.of(s.stack.functions.get(route.handler)!).node.id).toBe('Live');
  });

  it('shares one table, one HTTP API, one JWT authorizer and one stage across the stacks', () => {
    const count = (type: string) =>
      s.templates.flatMap(({ template }) =>
        Object.values(template.toJSON().Resources as Record<string, { Type: string }>).filter((r) => r.Type === type),
      ).length;
    expect(count('AWS::DynamoDB::Table')).toBe(1);
    expect(count('AWS::ApiGatewayV2::Authorizer')).toBe(1);
    expect(count('AWS::Cognito::UserPool')).toBe(1);
    // The HTTP API and the live channel's WebSocket API, a stage each.
    expect(count('AWS::ApiGatewayV2::Api')).toBe(2);
    expect(count('AWS::ApiGatewayV2::Stage')).toBe(2);
    for (const c of [s.stack.data.table, s.stack.api.httpApi, s.stack.api.stage, s.stack.auth.userPool!])
      expect(Stack.of(c)).toBe(s.stack);
  });
});

describe('routeStackOf: the stack is read off the route declaration', () => {
  const at = (handler: string, path: string) => routeStackOf({ handler, path });

  it('groups chat and public routes by area and admin routes by feature', () => {
    expect(at('chat/send-message', '/api/v1/chat/message')).toBe('Chat');
    expect(at('public/openapi', '/api/v1/openapi.json')).toBe('Public');
    expect(at('admin/patch-ticket', '/api/v1/admin/tickets/{id}')).toBe('AdminTickets');
    expect(at('admin/redeliver', '/api/v1/admin/integrations/{id}/deliveries/{deliveryId}/redeliver')).toBe(
      'AdminIntegrations',
    );
    // A route of a new feature gets a stack of its own, with no infra edit.
    expect(at('admin/list-macros', '/api/v1/admin/canned-replies')).toBe('AdminCannedReplies');
    expect(() => at('admin/x', '/api/v1/admin/{id}')).toThrow(/names no feature/);
  });

  it('covers every declared route, in declaration order', () => {
    const groups = routeStacks(routes);
    expect([...groups.values()].flat().map(routeKey).sort()).toEqual(routes.map(routeKey).sort());
    expect(groups.get('Chat')!.map((r) => r.handler)).toEqual(
      routes.filter((r) => r.handler.startsWith('chat/')).map((r) => r.handler),
    );
  });
});
