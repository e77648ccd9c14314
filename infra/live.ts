import { type CfnElement, Stack, Validations } from 'aws-cdk-lib';
import { AccessLogFormat } from 'aws-cdk-lib/aws-apigateway';
import { LogGroupLogDestination, WebSocketApi, WebSocketRoute, WebSocketStage } from 'aws-cdk-lib/aws-apigatewayv2';
import { WebSocketLambdaIntegration } from 'aws-cdk-lib/aws-apigatewayv2-integrations';
import type { IFunction } from 'aws-cdk-lib/aws-lambda';
import { LogGroup, type RetentionDays } from 'aws-cdk-lib/aws-logs';
import { Construct } from 'constructs';
import { LIVE_PATH, type SocketRoute } from '#shared/edge/triggers.ts';
import type { StackConfig } from './config.ts';
import type { ServiceFunction } from './function.ts';

/**
 * The live channel's access log line, like the HTTP API's: one JSON object per connect,
 * disconnect or message, with the connection id that ties them together.
 */
export const LIVE_ACCESS_LOG_FIELDS = {
  requestId: '$context.requestId',
  requestTime: '$context.requestTime',
  ip: '$context.identity.sourceIp',
  userAgent: '$context.identity.userAgent',
  eventType: '$context.eventType',
  routeKey: '$context.routeKey',
  connectionId: '$context.connectionId',
  status: '$context.status',
  integrationStatus: '$context.integration.status',
  integrationLatency: '$context.integrationLatency',
  integrationError: '$context.integration.error',
  error: '$context.error.message',
} as const;

/** Stage names allow no slash; the stage is the last segment of the path the local runtime serves. */
export const LIVE_STAGE = LIVE_PATH.split('/').at(-1)!;

const MANAGEMENT_WILDCARDS =
  'Connection ids exist only at run time, and posting to, reading and closing a connection are the POST, GET and DELETE methods of @connections/<id>; the grant is bound to this API and stage.';

export interface LiveApiProps {
  /** The API's name (a nested stack's own name is generated). */
  apiName: string;
  config: Pick<StackConfig, 'throttle'>;
  logRetention: RetentionDays;
}

/**
 * The live channel: an API Gateway WebSocket API whose $connect and $disconnect routes each
 * invoke their own function. API Gateway closes idle connections itself (LIVE_IDLE_SECONDS).
 * It stays on its execute-api URL even with a custom domain: API Gateway maps no WebSocket API
 * to a domain that serves an HTTP API.
 */
export class LiveApi extends Construct {
  readonly webSocketApi: WebSocketApi;
  readonly stage: WebSocketStage;
  readonly accessLogs: LogGroup;
  /** `wss://` URL clients connect to. */
  readonly url: string;
  /** `https://` management endpoint that functions post to connections through. */
  readonly callbackUrl: string;

  constructor(scope: Construct, id: string, props: LiveApiProps) {
    super(scope, id);
    this.webSocketApi = new WebSocketApi(this, 'WebSocketApi', {
      apiName: props.apiName,
      description: 'Support assistant: live channel (events of a conversation or a tenant)',
    });
    this.accessLogs = new LogGroup(this, 'AccessLogs', { retention: props.logRetention });
    this.stage = new WebSocketStage(this, 'Stage', {
      webSocketApi: this.webSocketApi,
      stageName: LIVE_STAGE,
      autoDeploy: true,
      throttle: { rateLimit: props.config.throttle.rateLimit, burstLimit: props.config.throttle.burstLimit },
      accessLogSettings: {
        destination: new LogGroupLogDestination(this.accessLogs),
        format: AccessLogFormat.custom(JSON.stringify(LIVE_ACCESS_LOG_FIELDS)),
      },
    });
    this.url = this.stage.url;
    this.callbackUrl = this.stage.callbackUrl;
  }

  /** One socket route and its own integration; clients reach it without an authorizer. */
  addRoute(route: SocketRoute, fn: IFunction, id: string): WebSocketRoute {
    const socketRoute = new WebSocketRoute(this, `Route${id}`, {
      webSocketApi: this.webSocketApi,
      routeKey: route.routeKey,
      integration: new WebSocketLambdaIntegration(`Integration${id}`, fn),
    });
    Validations.of(socketRoute).acknowledge({
      id: 'AwsSolutions-APIG4',
      reason:
        route.routeKey === '$connect'
          ? "The connect function authenticates the upgrade itself: a widget key with a conversation of its tenant, or a member's one-time live ticket (minted by a JWT-authorized admin route); a refusal is the upgrade's 401/403/404."
          : route.routeKey === '$disconnect'
            ? 'API Gateway authorizes WebSocket connections on $connect only; $disconnect is invoked by API Gateway for a connection that was authorized then.'
            : 'API Gateway authorizes WebSocket connections on $connect only; a frame rides a connection authorized then, and its function re-reads who the connection is (and that the membership or widget key still holds) before relaying anything.',
    });
    return socketRoute;
  }

  /**
   * Lets a function post to (and close) this stage's connections, and nothing else of
   * execute-api: ManageConnections on `<api>/<stage>/<method>/@connections/<id>` of this API.
   */
  bindManagement(target: ServiceFunction): void {
    target.fn.addEnvironment('LIVE_ENDPOINT', this.callbackUrl);
    this.stage.grantManagementApiAccess(target.role);
    Validations.of(target.role).acknowledge({ id: this.managementFinding(), reason: MANAGEMENT_WILDCARDS });
  }

  /** cdk-nag names a wildcard finding by the resource as written, the API's logical id included. */
  managementFinding(): string {
    const apiId = Stack.of(this).getLogicalId(this.webSocketApi.node.defaultChild as CfnElement);
    return `AwsSolutions-IAM5[Resource::arn:<AWS::Partition>:execute-api:<AWS::Region>:<AWS::AccountId>:<${apiId}>/${this.stage.stageName}/*/@connections/*]`;
  }
}
