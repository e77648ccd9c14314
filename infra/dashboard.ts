import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import { Aws, CfnOutput, DockerImage, Duration, Stack } from 'aws-cdk-lib';
import type { Distribution } from 'aws-cdk-lib/aws-cloudfront';
import {
  CfnManagedLoginBranding,
  ManagedLoginVersion,
  OAuthScope,
  UserPoolClientIdentityProvider,
  type UserPool,
  type UserPoolClient,
  type UserPoolDomain,
} from 'aws-cdk-lib/aws-cognito';
import type { Bucket } from 'aws-cdk-lib/aws-s3';
import { type BucketDeployment, CacheControl, Source } from 'aws-cdk-lib/aws-s3-deployment';
import { Construct } from 'constructs';
import type { Cdn } from './cdn.ts';

/**
 * The dashboard: its built files at `/` of the stack's CDN (infra/cdn.ts: a
 * private S3 bucket behind CloudFront with origin access control, the dashboard's security headers),
 * and, with the stack's Cognito user pool, a managed login domain and an app client for the code
 * flow with PKCE whose callback and sign-out URLs are the CDN's. `config.json` is written at
 * deploy time, so the same build runs anywhere.
 */
export interface DashboardProps {
  projectRoot: string;
  /** The CDN the dashboard is served from, at `/` (widget.js shares it). */
  cdn: Cdn;
  /** The stack's user pool; absent when an external OIDC issuer is configured. */
  userPool?: UserPool;
  /** Globally unique Cognito domain prefix; defaults to one made of the account id. */
  loginDomainPrefix?: string;
}

export interface DashboardRuntimeConfig {
  issuer: string;
  /** The app client id; defaults to the client this construct creates. */
  clientId?: string;
  apiUrl: string;
  liveUrl?: string | null;
  /** Where widget.js is served; defaults to this distribution. */
  widgetOrigin?: string;
}

export class Dashboard extends Construct {
  readonly bucket: Bucket;
  readonly distribution: Distribution;
  /** `https://<distribution domain>` */
  readonly url: string;
  readonly client?: UserPoolClient;
  readonly loginDomain?: UserPoolDomain;
  /** What config.json holds (tokens resolved at deploy time); set by deploy(). */
  runtimeConfig?: Record<string, unknown>;
  private readonly projectRoot: string;
  private readonly cdn: Cdn;

  constructor(scope: Construct, id: string, props: DashboardProps) {
    super(scope, id);
    this.projectRoot = props.projectRoot;
    this.cdn = props.cdn;

    this.bucket = props.cdn.bucket;
    this.distribution = props.cdn.distribution;
    this.url = props.cdn.url;

    if (props.userPool) {
      this.loginDomain = props.userPool.addDomain('Login', {
        cognitoDomain: { domainPrefix: props.loginDomainPrefix ?? `support-dashboard-${Aws.ACCOUNT_ID}` },
        managedLoginVersion: ManagedLoginVersion.NEWER_MANAGED_LOGIN,
      });
      this.client = props.userPool.addClient('DashboardWeb', {
        // A browser app keeps no secret: the code flow with PKCE.
        generateSecret: false,
        authFlows: {},
        supportedIdentityProviders: [UserPoolClientIdentityProvider.COGNITO],
        preventUserExistenceErrors: true,
        enableTokenRevocation: true,
        accessTokenValidity: Duration.hours(1),
        idTokenValidity: Duration.hours(1),
        refreshTokenValidity: Duration.days(30),
        oAuth: {
          flows: { authorizationCodeGrant: true },
          scopes: [OAuthScope.OPENID, OAuthScope.EMAIL, OAuthScope.PROFILE],
          callbackUrls: [`${this.url}/callback`],
          logoutUrls: [`${this.url}/`],
        },
      });
      // Managed login (version 2) shows its pages only with a branding for the client.
      new CfnManagedLoginBranding(this, 'LoginBranding', {
        userPoolId: props.userPool.userPoolId,
        clientId: this.client.userPoolClientId,
        useCognitoProvidedValues: true,
      });
    }
  }

  /** Uploads the build and writes config.json; call once the API and issuer are known. */
  deploy(config: DashboardRuntimeConfig): BucketDeployment {
    const clientId = config.clientId ?? this.client?.userPoolClientId;
    if (!clientId) throw new Error('the dashboard needs an app client id: give clientId with an external issuer');
    const runtime: Record<string, unknown> = {
      issuer: config.issuer,
      clientId,
      apiUrl: config.apiUrl.replace(/\/$/, ''),
      liveUrl: config.liveUrl ?? null,
      widgetOrigin: config.widgetOrigin ?? this.url,
      scope: 'openid email profile',
    };
    // Cognito's discovery document lists no end_session_endpoint; its logout endpoint takes these.
    if (this.loginDomain) {
      // Not percent-encoded: the URL is a deploy-time token, and ':' and '/' may stand in a query.
      runtime.logoutUrl = `${this.loginDomain.baseUrl()}/logout?client_id=${clientId}&logout_uri=${this.url}/`;
    }
    this.runtimeConfig = runtime;

    const deployment = this.cdn.deploy(this, 'Deploy', {
      sources: [buildSource(this.projectRoot), Source.jsonData('config.json', runtime)],
      // Pruning removes earlier builds' files, but not widget.js, which shares the bucket.
      exclude: ['widget.js'],
      distributionPaths: ['/index.html', '/config.json'],
      cacheControl: [CacheControl.fromString('no-cache')],
    });
    new CfnOutput(Stack.of(this), 'DashboardUrl', {
      value: this.url,
      description: 'The dashboard (sign in with the user pool)',
    });
    if (this.loginDomain)
      new CfnOutput(Stack.of(this), 'LoginDomain', {
        value: this.loginDomain.baseUrl(),
        description: 'Cognito managed login',
      });
    return deployment;
  }
}

/**
 * The dashboard built with Vite at synth time (local bundling: Node.js only, no Docker image is
 * pulled). Tests that skip bundling (`aws:cdk:bundling-stacks: []`) skip the build too.
 */
function buildSource(projectRoot: string) {
  const root = join(projectRoot, 'web/dashboard');
  return Source.asset(root, {
    exclude: ['dist', 'node_modules', 'src/api/schema.d.ts', 'src/api/openapi.json'],
    bundling: {
      image: DockerImage.fromRegistry('node:24-slim'),
      local: {
        tryBundle(outputDir: string) {
          execFileSync(join(projectRoot, 'node_modules/.bin/tsx'), [join(root, 'scripts/build.ts'), outputDir], {
            cwd: projectRoot,
            stdio: 'inherit',
          });
          return true;
        },
      },
    },
  });
}
