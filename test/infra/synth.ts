// Synthesizes the stack the way the tests need it: bundling skipped (the context
// `aws:cdk:bundling-stacks: []`), so no esbuild run per function, and one synth per context.
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { App, type CfnElement } from 'aws-cdk-lib';
import type { IConstruct } from 'constructs';
import { Template } from 'aws-cdk-lib/assertions';
import { readConfig } from '#infra/config.ts';
import { PROJECT_ROOT, SupportStack } from '#infra/stack.ts';
import { routes } from '#shared/edge/routes/index.ts';
import { eventDispatcher, liveRoutes } from '#shared/edge/triggers.ts';

export const STUB_ENTRY = join(PROJECT_ROOT, 'test/infra/fixtures/stub-handler.ts');
/** The module of a handler (`chat/send-message`), as the real stack builds it. */
export const handlerPath = (handler: string) => join(PROJECT_ROOT, 'functions', `${handler}.ts`);

export interface Synth {
  app: App;
  stack: SupportStack;
  template: Template;
  resources: Record<string, { Type: string; Properties?: any; Metadata?: any; [k: string]: any }>;
}

const cache = new Map<string, Synth>();

/**
 * NodejsFunction refuses an entry that does not exist. Handlers are written alongside this
 * stack; one not there yet is built from a stub, and the entry assertion in routes.test.ts
 * (which reads the template's entry metadata) fails for it, so nothing passes by accident.
 */
export function synth(context: Record<string, unknown> = {}): Synth {
  const key = JSON.stringify(context);
  const hit = cache.get(key);
  if (hit) return hit;
  const app = new App({ context: { 'aws:cdk:bundling-stacks': [], ...context } });
  const stack = new SupportStack(app, 'SupportAssistant', {
    config: readConfig(app.node),
    entryOf: (h) => (existsSync(handlerPath(h)) ? handlerPath(h) : STUB_ENTRY),
  });
  const template = Template.fromStack(stack);
  const result: Synth = { app, stack, template, resources: template.toJSON().Resources };
  cache.set(key, result);
  return result;
}

export const ofType = (s: Synth, type: string) =>
  Object.entries(s.resources).filter(([, r]) => r.Type === type);

/**
 * The CDN's resources (infra/cdn.ts: the bucket and distribution that serve the dashboard and
 * widget.js), BucketDeployment's own function included; cdn.test.ts and dashboard.test.ts check them.
 */
export const isCdn = (logicalId: string) => /^(Cdn|CustomCDKBucketDeployment)/.test(logicalId);

/** `ofType` without the CDN: the service's own functions, roles and log groups. */
export const serviceOfType = (s: Synth, type: string) => ofType(s, type).filter(([id]) => !isCdn(id));

/** `{ "Fn::GetAtt": [id, "Arn"] }` or `{ Ref: id }` -> id. */
export const refId = (v: any): string | undefined =>
  v?.Ref ?? (Array.isArray(v?.['Fn::GetAtt']) ? v['Fn::GetAtt'][0] : undefined);

/** The template id of an L2 construct's CloudFormation resource. */
export const logicalId = (s: Synth, construct: IConstruct): string =>
  s.stack.getLogicalId(construct.node.defaultChild as CfnElement);

/** Every function the stack makes, one per declaration: HTTP routes, WebSocket routes, the stream trigger. */
export interface Declared {
  handler: string;
  kind: 'http' | 'socket' | 'stream';
  table: 'read' | 'write' | 'none';
  kms?: boolean;
  /** Queues deliveries. */
  queue?: boolean;
  /** Closes live connections. */
  manageConnections?: boolean;
}

export const declared: readonly Declared[] = [
  ...routes.map((r): Declared => ({
    handler: r.handler, kind: 'http', table: r.table, ...(r.kms ? { kms: true } : {}), ...(r.queue ? { queue: true } : {}),
    ...(r.manageConnections ? { manageConnections: true } : {}),
  })),
  ...liveRoutes.map((r): Declared => ({ handler: r.handler, kind: 'socket', table: r.table })),
  { handler: eventDispatcher.handler, kind: 'stream', table: eventDispatcher.table },
];
