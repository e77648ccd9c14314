import { Duration, Stack, Validations } from 'aws-cdk-lib';
import { AccessLogFormat } from 'aws-cdk-lib/aws-apigateway';
import {
  CorsHttpMethod,
  DomainName,
  HttpApi,
  HttpMethod,
  HttpNoneAuthorizer,
  HttpRoute,
  HttpRouteKey,
  HttpStage,
  LogGroupLogDestination,
  type IHttpRouteAuthorizer,
} from 'aws-cdk-lib/aws-apigatewayv2';
import { HttpLambdaIntegration } from 'aws-cdk-lib/aws-apigatewayv2-integrations';
import { Certificate } from 'aws-cdk-lib/aws-certificatemanager';
import type { IFunction } from 'aws-cdk-lib/aws-lambda';
import { LogGroup, type RetentionDays } from 'aws-cdk-lib/aws-logs';
import { Construct } from 'constructs';
import type { Method, Route } from '#shared/edge/route.ts';
import type { StackConfig } from './config.ts';

/**
 * The HTTP API access log line: one JSON object per request, named fields so that Logs Insights
 * can filter on them without parsing. HTTP APIs substitute `$context` variables into the string.
 */
export const ACCESS_LOG_FIELDS = {
  requestId: '$context.requestId',
  requestTime: '$context.requestTime',
  ip: '$context.identity.sourceIp',
  userAgent: '$context.identity.userAgent',
  httpMethod: '$context.httpMethod',
  routeKey: '$context.routeKey',
  path: '$context.path',
  protocol: '$context.protocol',
  status: '$context.status',
  responseLength: '$context.responseLength',
  responseLatency: '$context.responseLatency',
  integrationStatus: '$context.integrationStatus',
  integrationLatency: '$context.integrationLatency',
  integrationError: '$context.integrationErrorMessage',
  authorizerError: '$context.authorizer.error',
  sub: '$context.authorizer.claims.sub',
} as const;

// What browsers may send and read cross-origin (docs/API.md, Cross-origin requests): widget key, bearer token,
// idempotency key; the request id and a 429's or 503's wait.
export const CORS_ALLOW_HEADERS = ['content-type', 'authorization', 'x-widget-key', 'idempotency-key'];
export const CORS_EXPOSE_HEADERS = ['x-request-id', 'retry-after'];

export interface ApiProps {
  config: Pick<StackConfig, 'customDomain' | 'throttle'>;
  logRetention: RetentionDays;
  jwtAuthorizer: IHttpRouteAuthorizer;
  /** The methods of the route table: preflight allows exactly these. */
  methods: readonly Method[];
}

export class Api extends Construct {
  readonly httpApi: HttpApi;
  readonly stage: HttpStage;
  readonly accessLogs: LogGroup;
  readonly domainName?: DomainName;
  /** Where clients reach the API: the custom domain when there is one. */
  readonly url: string;

  private readonly jwtAuthorizer: IHttpRouteAuthorizer;
  private readonly noAuth = new HttpNoneAuthorizer();

  constructor(scope: Construct, id: string, props: ApiProps) {
    super(scope, id);
    const { customDomain, throttle } = props.config;
    this.jwtAuthorizer = props.jwtAuthorizer;

    this.httpApi = new HttpApi(this, 'HttpApi', {
      apiName: Stack.of(this).stackName,
      description: 'Support assistant: chat widget API and admin API',
      // Our own stage below carries throttling, access logs and the domain mapping.
      createDefaultStage: false,
      // With a custom domain there is one way in, and the domain is it.
      disableExecuteApiEndpoint: customDomain !== undefined,
      // Any origin: a widget runs on its tenant's own site, and the chat functions narrow it per
      // tenant (widget.allowedOrigins). No route uses cookies, so never credentials. API Gateway
      // answers preflight itself, before any authorizer or function.
      corsPreflight: {
        allowOrigins: ['*'],
        allowMethods: [...new Set(props.methods)].map((m) => CorsHttpMethod[m]),
        allowHeaders: CORS_ALLOW_HEADERS,
        exposeHeaders: CORS_EXPOSE_HEADERS,
        allowCredentials: false,
        maxAge: Duration.hours(1),
      },
    });

    this.accessLogs = new LogGroup(this, 'AccessLogs', { retention: props.logRetention });

    if (customDomain) {
      this.domainName = new DomainName(this, 'Domain', {
        domainName: customDomain.domainName,
        // Imported by ARN: no lookup, so synth stays offline. Must be in the stack's region.
        certificate: Certificate.fromCertificateArn(this, 'Certificate', customDomain.certificateArn),
      });
    }

    // No X-Ray setting here: HTTP API stages have none (REST APIs do); traces start at the functions.
    this.stage = new HttpStage(this, 'Stage', {
      httpApi: this.httpApi,
      stageName: '$default',
      autoDeploy: true,
      throttle: { rateLimit: throttle.rateLimit, burstLimit: throttle.burstLimit },
      accessLogSettings: {
        destination: new LogGroupLogDestination(this.accessLogs),
        format: AccessLogFormat.custom(JSON.stringify(ACCESS_LOG_FIELDS)),
      },
      ...(this.domainName ? { domainMapping: { domainName: this.domainName } } : {}),
    });
    this.url = customDomain ? `https://${customDomain.domainName}/` : this.stage.url;
  }

  /**
   * One route, its own integration, and the authorizer its auth kind calls for, made in `scope`
   * (the stack of its function: route, integration and invoke permission live with the function,
   * the API, its stage and the authorizer stay here).
   */
  addRoute(scope: Construct, route: Route, fn: IFunction, id: string): HttpRoute {
    const httpRoute = new HttpRoute(scope, `Route${id}`, {
      httpApi: this.httpApi,
      routeKey: HttpRouteKey.with(route.path, HttpMethod[route.method]),
      integration: new HttpLambdaIntegration(`Integration${id}`, fn),
      authorizer: route.auth === 'jwt' ? this.jwtAuthorizer : this.noAuth,
    });
    if (route.auth !== 'jwt') {
      const why =
        route.auth === 'widget'
          ? "Widget route: called from customer web pages without a user; the function authenticates the X-Widget-Key header (hash lookup) and checks the tenant's allowed origins."
          : 'Public document (the OpenAPI description of this API); it reads no data.';
      Validations.of(httpRoute).acknowledge({ id: 'AwsSolutions-APIG4', reason: why });
    }
    return httpRoute;
  }
}
