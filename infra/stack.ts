import { fileURLToPath } from 'node:url';
import { join } from 'node:path';
import { CfnOutput, NestedStack, RemovalPolicy, Stack, Validations, type StackProps } from 'aws-cdk-lib';
import { Key } from 'aws-cdk-lib/aws-kms';
import { RetentionDays } from 'aws-cdk-lib/aws-logs';
import { Secret } from 'aws-cdk-lib/aws-secretsmanager';
import type { Construct } from 'constructs';
import { routes as allRoutes } from '#shared/edge/routes/index.ts';
import type { Route } from '#shared/edge/route.ts';
import { eventDispatcher, EXPORT_QUEUE, INDEX_QUEUE, liveRoutes, scheduledJobs } from '#shared/edge/triggers.ts';
import { Duration } from 'aws-cdk-lib';
import { Rule, Schedule } from 'aws-cdk-lib/aws-events';
import { LambdaFunction } from 'aws-cdk-lib/aws-events-targets';
import { Api } from './api.ts';
import { routeStacks } from './areas.ts';
import { Auth } from './auth.ts';
import { Cdn } from './cdn.ts';
import type { StackConfig } from './config.ts';
import { Dashboard } from './dashboard.ts';
import { Deliveries, EventStream, Exports, Indexing } from './events.ts';
import { EmailChannel, MailBucket } from './email.ts';
import { bindKey, bindTable, constructIdOf, ServiceFunction } from './function.ts';
import { LiveApi } from './live.ts';
import { FunctionAlarms, Monitoring } from './monitoring.ts';
import { DataTable } from './table.ts';

export const PROJECT_ROOT = fileURLToPath(new URL('..', import.meta.url));

export interface SupportStackProps extends StackProps {
  config: StackConfig;
  /** Defaults to the route table; tests may pass a subset. */
  routes?: readonly Route[];
  /** Where a handler module is (`chat/send-message`); defaults to `functions/<handler>.ts`. */
  entryOf?: (handler: string) => string;
}

/**
 * The app: one stack to deploy, whose template holds the shared core (table, user pool and JWT
 * authorizer, HTTP API and stage, KMS key, cursor secret, delivery queue and worker, CDN and
 * dashboard) and nested stacks for the rest, so that no template nears CloudFormation's 500
 * resources as routes are added: one per route area (infra/areas.ts), the live channel's, and the
 * alarms'. Each function's role, log group, alarms, API route and invoke permission sit in its
 * function's stack; CDK passes the core's ids and ARNs to them as stack parameters.
 */
export class SupportStack extends Stack {
  readonly data: DataTable;
  readonly auth: Auth;
  readonly api: Api;
  readonly live: LiveApi;
  readonly events: EventStream;
  readonly deliveries: Deliveries;
  readonly indexing: Indexing;
  readonly exports: Exports;
  readonly dashboard: Dashboard;
  readonly credentialsKey: Key;
  readonly cdn: Cdn;
  readonly mail: MailBucket;
  readonly email: EmailChannel;
  /** By handler path (`admin/patch-ticket`, `live/connect`, `events/dispatch`, `events/deliver`), one per handler. */
  readonly functions = new Map<string, ServiceFunction>();
  /** The nested stacks by name: `Live`, `Alarms`, and one per route area (`Chat`, `AdminTickets`, ...). */
  readonly nestedStacks = new Map<string, NestedStack>();

  constructor(scope: Construct, id: string, props: SupportStackProps) {
    super(scope, id, props);
    const { config } = props;
    const routes = props.routes ?? allRoutes;
    const entryOf = props.entryOf ?? ((handler: string) => join(PROJECT_ROOT, 'functions', `${handler}.ts`));
    const logRetention = retention(config.logRetentionDays);

    this.data = new DataTable(this, 'Data');
    this.auth = new Auth(this, 'Auth', config);
    const loginDomainPrefix = this.node.tryGetContext('loginDomainPrefix') as string | undefined;
    this.cdn = new Cdn(this, 'Cdn', { projectRoot: PROJECT_ROOT, logRetention });
    this.dashboard = new Dashboard(this, 'Dashboard', {
      projectRoot: PROJECT_ROOT,
      cdn: this.cdn,
      ...(this.auth.userPool ? { userPool: this.auth.userPool } : {}),
      ...(loginDomainPrefix ? { loginDomainPrefix } : {}),
    });
    if (this.dashboard.client) this.auth.allowClient(this.dashboard.client);
    this.api = new Api(this, 'Api', {
      config,
      logRetention,
      jwtAuthorizer: this.auth.authorizer,
      methods: routes.map((r) => r.method),
    });

    // Integration credentials are envelope-encrypted with this key; only the functions that
    // store credentials may use it.
    this.credentialsKey = new Key(this, 'CredentialsKey', {
      description: 'Support assistant: encrypts integration credentials',
      enableKeyRotation: true,
      // Losing the key loses every stored credential.
      removalPolicy: RemovalPolicy.RETAIN,
    });

    // Signs pagination cursors (shared/core/config.ts reads CURSOR_SECRET). CloudFormation resolves
    // it into the functions' environment at deploy time; no function may read Secrets Manager.
    const cursorSecret = new Secret(this, 'CursorSecret', {
      description: 'Support assistant: HMAC key for pagination cursors',
      generateSecretString: { passwordLength: 48, excludePunctuation: true },
    });
    Validations.of(cursorSecret).acknowledge({
      id: 'AwsSolutions-SMG4',
      reason:
        'The cursor signing key has no consumer to rotate with: functions get it at deploy time. Rotating it only invalidates outstanding page cursors; rotate by replacing the secret and redeploying.',
    });

    const alarmTopic = config.alarmTopicArn ? { alarmTopicArn: config.alarmTopicArn } : {};
    const addFunction = (
      scope: Construct,
      handler: string,
      description: string,
      environment: Record<string, string> = {},
      encoder = false,
      timeout?: Duration,
    ) => {
      if (this.functions.has(handler)) throw new Error(`two declarations name the handler ${handler}`);
      const f = new ServiceFunction(scope, constructIdOf(handler), {
        entry: entryOf(handler),
        projectRoot: PROJECT_ROOT,
        logRetention,
        description,
        environment,
        encoder,
        ...(timeout ? { timeout } : {}),
      });
      this.functions.set(handler, f);
      return f;
    };
    /** The alarms of the functions made in `scope` so far, in that scope. */
    const alarmFunctionsOf = (scope: Construct) =>
      new FunctionAlarms(scope, `${scope === this ? 'Core' : scope.node.id}FunctionAlarms`, {
        functions: new Map([...this.functions].filter(([, f]) => Stack.of(f) === Stack.of(scope))),
        ...alarmTopic,
      });

    this.deliveries = new Deliveries(this, 'Deliveries', {
      data: this.data,
      credentialsKey: this.credentialsKey,
      projectRoot: PROJECT_ROOT,
      logRetention,
      entry: entryOf('events/deliver'),
      // Slack messages link to the conversation in the dashboard: the stack's own, unless told another.
      dashboardUrl: config.dashboardUrl ?? this.dashboard.url,
    });
    this.functions.set('events/deliver', this.deliveries.fn);
    this.indexing = new Indexing(this, 'Indexing', {
      data: this.data,
      projectRoot: PROJECT_ROOT,
      logRetention,
      entry: entryOf(INDEX_QUEUE.handler),
    });
    this.functions.set(INDEX_QUEUE.handler, this.indexing.fn);
    for (const job of scheduledJobs) {
      const f = addFunction(
        this,
        job.handler,
        `Every ${job.everyMinutes} minutes`,
        {},
        false,
        Duration.seconds(job.timeoutSeconds),
      );
      bindTable(f, this.data, job.table);
      acknowledgeFunctionFindings(f, SCHEDULED);
      const rule = new Rule(this, `${constructIdOf(job.handler)}Schedule`, {
        schedule: Schedule.rate(Duration.minutes(job.everyMinutes)),
        targets: [new LambdaFunction(f.fn, { retryAttempts: 2 })],
      });
      Validations.of(rule).acknowledge({ id: 'Serverless-EventBusDLQ', reason: SCHEDULED.dlq });
    }
    this.mail = new MailBucket(this, 'Mail');
    this.exports = new Exports(this, 'Exports', {
      data: this.data,
      projectRoot: PROJECT_ROOT,
      logRetention,
      entry: entryOf(EXPORT_QUEUE.handler),
    });
    this.functions.set(EXPORT_QUEUE.handler, this.exports.fn);
    this.mail.grantExports(this.exports.fn);
    alarmFunctionsOf(this);

    // The email channel's stack: SES in and out, and its three functions.
    const emailStack = this.nest('Email', 'Email channel: SES receipt rule, sending, sending events');
    this.email = new EmailChannel(emailStack, 'Channel', {
      data: this.data,
      mail: this.mail,
      projectRoot: PROJECT_ROOT,
      logRetention,
      receiveEntry: entryOf('email/receive'),
      sendEntry: entryOf('email/send'),
      eventsEntry: entryOf('email/events'),
      dashboardUrl: config.dashboardUrl ?? this.dashboard.url,
      ...(config.emailDomain ? { inboundDomain: config.emailDomain } : {}),
      activateRuleSet: config.emailActivateRuleSet,
    });
    this.functions
      .set('email/receive', this.email.receive)
      .set('email/send', this.email.send)
      .set('email/events', this.email.events);
    alarmFunctionsOf(emailStack);

    // The live channel's stack: the WebSocket API, its functions, and the stream dispatcher that
    // posts to its connections (its grant names the API, so they share a template).
    const liveStack = this.nest('Live', 'Live channel: WebSocket API and its functions; the table stream dispatcher');
    this.live = new LiveApi(liveStack, 'Channel', { apiName: `${this.stackName}-live`, config, logRetention });
    for (const route of liveRoutes) {
      const f = addFunction(liveStack, route.handler, `WebSocket ${route.routeKey}`);
      bindTable(f, this.data, route.table);
      acknowledgeFunctionFindings(f, SYNCHRONOUS);
      if (route.manageConnections) this.live.bindManagement(f);
      this.live.addRoute(route, f.fn, constructIdOf(route.handler));
    }
    const dispatcher = addFunction(
      liveStack,
      eventDispatcher.handler,
      'DynamoDB stream: event items',
      {},
      false,
      Duration.seconds(eventDispatcher.functionTimeoutSeconds),
    );
    bindTable(dispatcher, this.data, eventDispatcher.table);
    if (eventDispatcher.manageConnections) this.live.bindManagement(dispatcher);
    // It fans each event out to the integrations that take it: one queued delivery each.
    this.deliveries.grantEnqueue(dispatcher);
    // And queues the tenants whose content changed for the indexer.
    this.indexing.grantEnqueue(dispatcher);
    this.email.grantEnqueue(dispatcher);
    this.events = new EventStream(liveStack, 'Events', { data: this.data, dispatcher, trigger: eventDispatcher });
    acknowledgeFunctionFindings(dispatcher, STREAM);
    alarmFunctionsOf(liveStack);

    // With an external issuer, its first audience is taken as the dashboard's client id.
    this.dashboard.deploy({
      issuer: this.auth.issuerUrl,
      apiUrl: this.api.url,
      liveUrl: this.live.url,
      ...(config.oidc ? { clientId: config.oidc.audience[0]! } : {}),
    });

    // One stack per route area (infra/areas.ts), each route's function and API route in it.
    for (const [name, group] of routeStacks(routes)) {
      const routeStack = this.nest(name, `the functions and HTTP API routes of ${name}`);
      for (const route of group) {
        const f = addFunction(
          routeStack,
          route.handler,
          `${route.method} ${route.path}`,
          {
            ...(route.table === 'none' ? {} : { CURSOR_SECRET: cursorSecret.secretValue.unsafeUnwrap() }),
            // The widget learns the live channel's URL from the chat API (liveUrl).
            ...(route.auth === 'widget' ? { LIVE_URL: this.live.url } : {}),
          },
          route.encoder ?? false,
        );
        if (route.table !== 'none') bindTable(f, this.data, route.table);
        if (route.kms) bindKey(f, this.credentialsKey);
        if (route.queue) this.deliveries.grantEnqueue(f);
        if (route.mailLinks) this.mail.grantLinks(f);
        if (route.exportLinks) this.mail.grantExportLinks(f);
        if (route.exportQueue) this.exports.grantEnqueue(f);
        if (route.eraseObjects) this.mail.grantErasure(f);
        if (route.sesIdentities) this.email.grantIdentityReads(f);
        acknowledgeFunctionFindings(f, SYNCHRONOUS);
        this.api.addRoute(routeStack, route, f.fn, constructIdOf(route.handler));
      }
      alarmFunctionsOf(routeStack);
    }

    new Monitoring(
      this.nest('Alarms', 'Alarms of the API, the table, the dead-letter queues and the failure metrics'),
      'Monitoring',
      {
        api: this.api.httpApi,
        stage: this.api.stage,
        data: this.data,
        deadLetters: {
          Events: this.events.deadLetters,
          Deliveries: this.deliveries.deadLetters,
          Indexing: this.indexing.deadLetters,
          Exports: this.exports.deadLetters,
          EmailOut: this.email.outDeadLetters,
          EmailEvents: this.email.eventsDeadLetters,
        },
        ...alarmTopic,
      },
    );

    new CfnOutput(this, 'ApiUrl', { value: this.api.url, description: 'Base URL of the API' });
    new CfnOutput(this, 'LiveUrl', { value: this.live.url, description: 'WebSocket URL of the live channel' });
    new CfnOutput(this, 'TableName', { value: this.data.table.tableName });
    new CfnOutput(this, 'IssuerUrl', { value: this.auth.issuerUrl, description: 'Issuer the JWT authorizer trusts' });
    if (this.auth.userPool && this.auth.client) {
      new CfnOutput(this, 'UserPoolId', { value: this.auth.userPool.userPoolId });
      new CfnOutput(this, 'UserPoolClientId', { value: this.auth.client.userPoolClientId });
    }
    if (this.api.domainName) {
      new CfnOutput(this, 'DomainTarget', {
        value: this.api.domainName.regionalDomainName,
        description: 'Point a CNAME (or alias record) for the custom domain here',
      });
    }
  }

  private nest(name: string, description: string): NestedStack {
    if (this.nestedStacks.has(name)) throw new Error(`two nested stacks named ${name}`);
    const nested = new NestedStack(this, name, { description: `${this.stackName}: ${description}` });
    this.nestedStacks.set(name, nested);
    return nested;
  }
}

function retention(days: number): RetentionDays {
  const valid = Object.values(RetentionDays).filter((v): v is RetentionDays => typeof v === 'number');
  if (!valid.includes(days as RetentionDays)) {
    throw new Error(`context logRetentionDays must be one of ${valid.join(', ')}; got ${days}`);
  }
  return days as RetentionDays;
}

interface Invocation {
  wildcards: string;
  dlq: string;
}

const SYNCHRONOUS: Invocation = {
  wildcards:
    'Only xray:PutTraceSegments and xray:PutTelemetryRecords (active tracing) are on Resource *: those X-Ray actions support no resource-level permissions.',
  dlq: 'Invoked synchronously by API Gateway only: a failure is returned to the caller, there is no asynchronous event to dead-letter.',
};

const SCHEDULED: Invocation = {
  wildcards: SYNCHRONOUS.wildcards,
  dlq: "Invoked by its schedule: a failed run is retried twice, shows in the function's error alarm, and the next run redoes its work (the job is idempotent).",
};

const STREAM: Invocation = {
  wildcards:
    "On Resource * only the X-Ray tracing actions and dynamodb:ListStreams (which the stream event source needs and which names no stream); reading records is granted on the table's stream ARN alone.",
  dlq: "Invoked by the stream's event source mapping, never asynchronously: records that fail every retry go to the mapping's on-failure destination (an SQS queue with an alarm), which a function DLQ would not receive.",
};

/** Findings every function triggers by design; each reason says why it is acceptable. */
function acknowledgeFunctionFindings(f: ServiceFunction, how: Invocation): void {
  Validations.of(f.role).acknowledge({ id: 'AwsSolutions-IAM5[Resource::*]', reason: how.wildcards });
  Validations.of(f.fn).acknowledge({ id: 'Serverless-LambdaDLQ', reason: how.dlq });
}
