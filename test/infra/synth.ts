// Synthesizes the stack the way the tests need it: bundling skipped (the context
// `aws:cdk:bundling-stacks: []`), so no esbuild run per function, and one synth per context.
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { App, type CfnElement, type NestedStack, Stack } from 'aws-cdk-lib';
import type { IConstruct } from 'constructs';
import { Template } from 'aws-cdk-lib/assertions';
import { readConfig } from '#infra/config.ts';
import { PROJECT_ROOT, SupportStack } from '#infra/stack.ts';
import { routes } from '#shared/edge/routes/index.ts';
import type { Route } from '#shared/edge/route.ts';
import { eventDispatcher, liveRoutes, scheduledJobs } from '#shared/edge/triggers.ts';

export const STUB_ENTRY = join(PROJECT_ROOT, 'test/infra/fixtures/stub-handler.ts');
/** The module of a handler (`chat/send-message`), as the real stack builds it. */
export const handlerPath = (handler: string) => join(PROJECT_ROOT, 'functions', `${handler}.ts`);

export interface Synth {
  app: App;
  stack: SupportStack;
  /** The parent stack's template. */
  template: Template;
  /** Every template of the app: the parent's, then each nested stack's. */
  templates: { stack: Stack; template: Template }[];
  /**
   * The resources of every template as one deployment: what crosses a template boundary (a nested
   * stack's parameter, a sibling's output) is replaced by what CloudFormation passes, so a Ref in
   * a nested stack names the parent's resource as if they shared one template.
   */
  resources: Record<string, { Type: string; Properties?: any; Metadata?: any; [k: string]: any }>;
  /** The parent's outputs, resolved the same way. */
  outputs: Record<string, { Value: any; [k: string]: any }>;
}

const cache = new Map<string, Synth>();

/**
 * NodejsFunction refuses an entry that does not exist. Handlers are written alongside this
 * stack; one not there yet is built from a stub, and the entry assertion in routes.test.ts
 * (which reads the template's entry metadata) fails for it, so nothing passes by accident.
 */
export function synth(context: Record<string, unknown> = {}, routes?: readonly Route[]): Synth {
  const key = JSON.stringify([context, routes?.map((r) => r.handler)]);
  const hit = cache.get(key);
  if (hit) return hit;
  const app = new App({ context: { 'aws:cdk:bundling-stacks': [], ...context } });
  const stack = new SupportStack(app, 'SupportAssistant', {
    config: readConfig(app.node),
    entryOf: (h) => (existsSync(handlerPath(h)) ? handlerPath(h) : STUB_ENTRY),
    ...(routes ? { routes } : {}),
  });
  const template = Template.fromStack(stack);
  const templates = [stack, ...stack.nestedStacks.values()].map((st) => ({
    stack: st as Stack,
    template: Template.fromStack(st),
  }));
  const result: Synth = { app, stack, template, templates, ...deployment(stack) };
  cache.set(key, result);
  return result;
}

/** The parent's and nested templates as one (see Synth.resources); fails on a logical id used twice. */
function deployment(parent: SupportStack): Pick<Synth, 'resources' | 'outputs'> {
  const jsons = new Map<Stack, any>();
  const json = (st: Stack) => {
    if (!jsons.has(st)) jsons.set(st, Template.fromStack(st).toJSON());
    return jsons.get(st);
  };
  const nestedById = new Map(
    [...parent.nestedStacks.values()].map((n) => [parent.getLogicalId(n.nestedStackResource!), n]),
  );
  // What each nested stack's parameters receive, resolved against the parent.
  const params = new Map<NestedStack, Record<string, unknown>>();
  const resolve = (v: any, st: Stack): any => {
    if (Array.isArray(v)) return v.map((x) => resolve(x, st));
    if (v === null || typeof v !== 'object') return v;
    const own = st === parent ? undefined : paramsOf(st as NestedStack);
    if (typeof v.Ref === 'string' && own && v.Ref in own) return own[v.Ref];
    const getAtt = v['Fn::GetAtt'];
    if (
      st === parent &&
      Array.isArray(getAtt) &&
      nestedById.has(getAtt[0]) &&
      String(getAtt[1]).startsWith('Outputs.')
    ) {
      const producer = nestedById.get(getAtt[0])!;
      return resolve(json(producer).Outputs[getAtt[1].slice('Outputs.'.length)].Value, producer);
    }
    return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, resolve(x, st)]));
  };
  const paramsOf = (n: NestedStack): Record<string, unknown> => {
    let p = params.get(n);
    if (!p) {
      const given = json(parent).Resources[parent.getLogicalId(n.nestedStackResource!)].Properties.Parameters ?? {};
      p = resolve(given, parent) as Record<string, unknown>;
      params.set(n, p);
    }
    return p;
  };
  const resources: Synth['resources'] = {};
  for (const st of [parent, ...parent.nestedStacks.values()]) {
    for (const [id, r] of Object.entries(json(st).Resources ?? {})) {
      if (id in resources) throw new Error(`logical id ${id} is in two templates`);
      resources[id] = resolve(r, st);
    }
  }
  return { resources, outputs: resolve(json(parent).Outputs, parent) };
}

export const ofType = (s: Synth, type: string) => Object.entries(s.resources).filter(([, r]) => r.Type === type);

/**
 * The CDN's resources (infra/cdn.ts: the bucket and distribution that serve the dashboard and
 * widget.js), BucketDeployment's own function included; cdn.test.ts and dashboard.test.ts check them.
 */
export const isCdn = (logicalId: string) => /^(Cdn|CustomCDKBucketDeployment)/.test(logicalId);

/**
 * The email channel's deploy-time activation of its SES receipt rule set (infra/email.ts): a
 * function, aws-cdk-lib's provider framework function, their roles and log groups; email.test.ts checks them.
 */
export const isRuleSetActivation = (logicalId: string) => /^ChannelActivation/.test(logicalId);

/** `ofType` without the CDN and the rule set's activation: the service's own functions, roles and log groups. */
export const serviceOfType = (s: Synth, type: string) =>
  ofType(s, type).filter(([id]) => !isCdn(id) && !isRuleSetActivation(id));

/** `{ "Fn::GetAtt": [id, "Arn"] }` or `{ Ref: id }` -> id. */
export const refId = (v: any): string | undefined =>
  v?.Ref ?? (Array.isArray(v?.['Fn::GetAtt']) ? v['Fn::GetAtt'][0] : undefined);

/** The template id of an L2 construct's CloudFormation resource. */
export const logicalId = (_s: Synth, construct: IConstruct): string =>
  Stack.of(construct).getLogicalId(construct.node.defaultChild as CfnElement);

/** Every function the stack makes, one per declaration: HTTP routes, WebSocket routes, the stream trigger, the scheduled jobs. */
export interface Declared {
  handler: string;
  kind: 'http' | 'socket' | 'stream' | 'schedule';
  table: 'read' | 'write' | 'none';
  kms?: boolean;
  /** Queues deliveries. */
  queue?: boolean;
  /** Posts to live connections. */
  manageConnections?: boolean;
  /** Presigns links to the mail bucket. */
  mailLinks?: boolean;
  /** Presigns links to tenant exports. */
  exportLinks?: boolean;
  /** Queues tenant exports. */
  exportQueue?: boolean;
  /** Deletes a customer's stored mail. */
  eraseObjects?: boolean;
  /** Reads SES's verification of sending identities. */
  sesIdentities?: boolean;
}

export const declared: readonly Declared[] = [
  ...routes.map(
    (r): Declared => ({
      handler: r.handler,
      kind: 'http',
      table: r.table,
      ...(r.kms ? { kms: true } : {}),
      ...(r.queue ? { queue: true } : {}),
      ...(r.mailLinks ? { mailLinks: true } : {}),
      ...(r.exportLinks ? { exportLinks: true } : {}),
      ...(r.exportQueue ? { exportQueue: true } : {}),
      ...(r.eraseObjects ? { eraseObjects: true } : {}),
      ...(r.sesIdentities ? { sesIdentities: true } : {}),
    }),
  ),
  ...liveRoutes.map(
    (r): Declared => ({
      handler: r.handler,
      kind: 'socket',
      table: r.table,
      ...(r.manageConnections ? { manageConnections: true } : {}),
    }),
  ),
  { handler: eventDispatcher.handler, kind: 'stream', table: eventDispatcher.table },
  ...scheduledJobs.map((j): Declared => ({ handler: j.handler, kind: 'schedule', table: j.table })),
];
