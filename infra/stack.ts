import { fileURLToPath } from 'node:url';
import { join } from 'node:path';
import { CfnOutput, RemovalPolicy, Stack, Validations, type StackProps } from 'aws-cdk-lib';
import { Key } from 'aws-cdk-lib/aws-kms';
import { RetentionDays } from 'aws-cdk-lib/aws-logs';
import { Secret } from 'aws-cdk-lib/aws-secretsmanager';
import type { Construct } from 'constructs';
import { routes as allRoutes } from '#shared/http/routes/index.ts';
import type { Route } from '#shared/http/route.ts';
import { Api } from './api.ts';
import { Auth } from './auth.ts';
import { Cdn } from './cdn.ts';
import type { StackConfig } from './config.ts';
import { bindKey, bindTable, constructIdOf, ServiceFunction } from './function.ts';
import { Monitoring } from './monitoring.ts';
import { DataTable } from './table.ts';

export const PROJECT_ROOT = fileURLToPath(new URL('..', import.meta.url));

export interface SupportStackProps extends StackProps {
  config: StackConfig;
  /** Defaults to the route table; tests may pass a subset. */
  routes?: readonly Route[];
  /** Where a route's handler module is; defaults to `functions/<handler>.ts`. */
  entryOf?: (route: Route) => string;
}

export class SupportStack extends Stack {
  readonly data: DataTable;
  readonly auth: Auth;
  readonly api: Api;
  readonly credentialsKey: Key;
  readonly cdn: Cdn;
  /** By handler path (`admin/patch-ticket`), one per route. */
  readonly functions = new Map<string, ServiceFunction>();

  constructor(scope: Construct, id: string, props: SupportStackProps) {
    super(scope, id, props);
    const { config } = props;
    const routes = props.routes ?? allRoutes;
    const entryOf = props.entryOf ?? ((r: Route) => join(PROJECT_ROOT, 'functions', `${r.handler}.ts`));
    const logRetention = retention(config.logRetentionDays);

    this.data = new DataTable(this, 'Data');
    this.auth = new Auth(this, 'Auth', config);
    this.api = new Api(this, 'Api', { config, logRetention, jwtAuthorizer: this.auth.authorizer });

    // Integration credentials are envelope-encrypted with this key; only the functions that
    // store credentials may use it.
    this.credentialsKey = new Key(this, 'CredentialsKey', {
      description: 'Support assistant: encrypts integration credentials',
      enableKeyRotation: true,
      // Losing the key loses every stored credential.
      removalPolicy: RemovalPolicy.RETAIN,
    });

    // Signs pagination cursors (shared/config.ts reads CURSOR_SECRET). CloudFormation resolves
    // it into the functions' environment at deploy time; no function may read Secrets Manager.
    const cursorSecret = new Secret(this, 'CursorSecret', {
      description: 'Support assistant: HMAC key for pagination cursors',
      generateSecretString: { passwordLength: 48, excludePunctuation: true },
    });
    Validations.of(cursorSecret).acknowledge({
      id: 'AwsSolutions-SMG4',
      reason: 'The cursor signing key has no consumer to rotate with: functions get it at deploy time. Rotating it only invalidates outstanding page cursors; rotate by replacing the secret and redeploying.',
    });

    for (const route of routes) {
      const cid = constructIdOf(route.handler);
      if (this.functions.has(route.handler)) throw new Error(`two routes name the handler ${route.handler}`);
      const f = new ServiceFunction(this, cid, {
        entry: entryOf(route),
        projectRoot: PROJECT_ROOT,
        logRetention,
        description: `${route.method} ${route.path}`,
        environment: route.table === 'none' ? {} : { CURSOR_SECRET: cursorSecret.secretValue.unsafeUnwrap() },
      });
      if (route.table !== 'none') bindTable(f, this.data, route.table);
      if (route.kms) bindKey(f, this.credentialsKey);
      acknowledgeFunctionFindings(f);
      this.functions.set(route.handler, f);
      this.api.addRoute(route, f.fn, cid);
    }

    this.cdn = new Cdn(this, 'Cdn', { projectRoot: PROJECT_ROOT, logRetention });

    new Monitoring(this, 'Monitoring', {
      api: this.api.httpApi,
      stage: this.api.stage,
      functions: this.functions,
      data: this.data,
      ...(config.alarmTopicArn ? { alarmTopicArn: config.alarmTopicArn } : {}),
    });

    new CfnOutput(this, 'ApiUrl', { value: this.api.url, description: 'Base URL of the API' });
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
}

function retention(days: number): RetentionDays {
  const valid = Object.values(RetentionDays).filter((v): v is RetentionDays => typeof v === 'number');
  if (!valid.includes(days as RetentionDays)) {
    throw new Error(`context logRetentionDays must be one of ${valid.join(', ')}; got ${days}`);
  }
  return days as RetentionDays;
}

/** Findings every function triggers by design; each reason says why it is acceptable. */
function acknowledgeFunctionFindings(f: ServiceFunction): void {
  Validations.of(f.role).acknowledge({
    id: 'AwsSolutions-IAM5[Resource::*]',
    reason: 'Only xray:PutTraceSegments and xray:PutTelemetryRecords (active tracing) are on Resource *: those X-Ray actions support no resource-level permissions.',
  });
  Validations.of(f.fn).acknowledge({
    id: 'Serverless-LambdaDLQ',
    reason: 'Invoked synchronously by API Gateway only: a failure is returned to the caller, there is no asynchronous event to dead-letter.',
  });
}
