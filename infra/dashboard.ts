import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import { Aws, CfnOutput, DockerImage, Duration, RemovalPolicy, Stack, Validations, type CfnElement } from 'aws-cdk-lib';
import {
  AllowedMethods, CachePolicy, Distribution, HeadersFrameOption, HeadersReferrerPolicy, HttpVersion, PriceClass,
  ResponseHeadersPolicy, ViewerProtocolPolicy,
} from 'aws-cdk-lib/aws-cloudfront';
import { S3BucketOrigin } from 'aws-cdk-lib/aws-cloudfront-origins';
import {
  CfnManagedLoginBranding, ManagedLoginVersion, OAuthScope, UserPoolClientIdentityProvider,
  type UserPool, type UserPoolClient, type UserPoolDomain,
} from 'aws-cdk-lib/aws-cognito';
import { BlockPublicAccess, Bucket, BucketEncryption, ObjectOwnership } from 'aws-cdk-lib/aws-s3';
import { BucketDeployment, CacheControl, Source } from 'aws-cdk-lib/aws-s3-deployment';
import { Construct } from 'constructs';

/**
 * The dashboard (CONTRACT section 10): its built files in a private S3 bucket behind CloudFront
 * (origin access control, no public bucket), and, with the stack's Cognito user pool, a managed
 * login domain and an app client for the code flow with PKCE whose callback and sign-out URLs
 * are the CDN's. `config.json` is written at deploy time, so the same build runs anywhere.
 */
export interface DashboardProps {
  projectRoot: string;
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

  constructor(scope: Construct, id: string, props: DashboardProps) {
    super(scope, id);
    this.projectRoot = props.projectRoot;

    this.bucket = new Bucket(this, 'Files', {
      blockPublicAccess: BlockPublicAccess.BLOCK_ALL,
      objectOwnership: ObjectOwnership.BUCKET_OWNER_ENFORCED,
      encryption: BucketEncryption.S3_MANAGED,
      enforceSSL: true,
      // Only build output lives here, but emptying it on stack deletion would take one more
      // custom-resource function; a deleted stack leaves it behind instead.
      removalPolicy: RemovalPolicy.RETAIN,
    });
    Validations.of(this.bucket).acknowledge({
      id: 'AwsSolutions-S1',
      reason: 'The bucket holds only the dashboard build, written by the deployment and read by CloudFront through origin access control; object access logs would record nothing but CloudFront fetches of public build files.',
    });

    const headers = new ResponseHeadersPolicy(this, 'Headers', {
      comment: 'Support dashboard: security headers',
      securityHeadersBehavior: {
        contentSecurityPolicy: {
          override: true,
          // The API, the Cognito endpoints and the live channel are on AWS domains.
          contentSecurityPolicy: "default-src 'self'; connect-src 'self' https://*.amazonaws.com https://*.amazoncognito.com wss://*.amazonaws.com; img-src 'self' data:; style-src 'self' 'unsafe-inline'; frame-ancestors 'none'; base-uri 'self'; form-action 'self'",
        },
        contentTypeOptions: { override: true },
        frameOptions: { frameOption: HeadersFrameOption.DENY, override: true },
        referrerPolicy: { referrerPolicy: HeadersReferrerPolicy.NO_REFERRER, override: true },
        strictTransportSecurity: { accessControlMaxAge: Duration.days(365), includeSubdomains: true, override: true },
      },
    });

    this.distribution = new Distribution(this, 'Cdn', {
      comment: 'Support dashboard',
      defaultRootObject: 'index.html',
      httpVersion: HttpVersion.HTTP2_AND_3,
      priceClass: PriceClass.PRICE_CLASS_100,
      defaultBehavior: {
        origin: S3BucketOrigin.withOriginAccessControl(this.bucket),
        viewerProtocolPolicy: ViewerProtocolPolicy.REDIRECT_TO_HTTPS,
        allowedMethods: AllowedMethods.ALLOW_GET_HEAD,
        cachePolicy: CachePolicy.CACHING_OPTIMIZED,
        responseHeadersPolicy: headers,
        compress: true,
      },
      // Client-side routes (/tickets/tkt_...) are not files: the app answers them. Through OAC a
      // missing object is a 403.
      errorResponses: [403, 404].map((httpStatus) => ({ httpStatus, responseHttpStatus: 200, responsePagePath: '/index.html', ttl: Duration.seconds(0) })),
    });
    this.url = `https://${this.distribution.distributionDomainName}`;
    Validations.of(this.distribution).acknowledge({
      id: 'AwsSolutions-CFR1',
      reason: 'The dashboard is for support teams wherever they work; no country is excluded. Sign-in and the API enforce access, not geography.',
    });
    Validations.of(this.distribution).acknowledge({
      id: 'AwsSolutions-CFR2',
      reason: 'The distribution serves static build files only; every request that reads or changes data goes to the API, which has its own throttling and JWT authorizer. A web ACL here would bill per request for no protected resource.',
    });
    Validations.of(this.distribution).acknowledge({
      id: 'AwsSolutions-CFR3',
      reason: 'Access logs of static build files carry no signal worth their storage; sign-ins are logged by Cognito and data access by the API access logs.',
    });
    Validations.of(this.distribution).acknowledge({
      id: 'AwsSolutions-CFR4',
      reason: 'The distribution uses the default *.cloudfront.net certificate, whose security policy CloudFront fixes at TLSv1; a minimum protocol version takes effect only with a custom domain certificate, which this stack does not attach to the dashboard.',
    });

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

    const deployment = new BucketDeployment(this, 'Deploy', {
      destinationBucket: this.bucket,
      sources: [buildSource(this.projectRoot), Source.jsonData('config.json', runtime)],
      distribution: this.distribution,
      distributionPaths: ['/index.html', '/config.json'],
      cacheControl: [CacheControl.fromString('no-cache')],
      memoryLimit: 512,
    });
    this.acknowledgeDeploymentFindings();
    new CfnOutput(Stack.of(this), 'DashboardUrl', { value: this.url, description: 'The dashboard (sign in with the user pool)' });
    if (this.loginDomain) new CfnOutput(Stack.of(this), 'LoginDomain', { value: this.loginDomain.baseUrl(), description: 'Cognito managed login' });
    return deployment;
  }

  /** BucketDeployment's handler is aws-cdk-lib's own deploy-time function, one per stack. */
  private acknowledgeDeploymentFindings() {
    const stack = Stack.of(this);
    const handler = stack.node.children.find((c) => c.node.id.startsWith('Custom::CDKBucketDeployment'));
    if (!handler) throw new Error('BucketDeployment handler not found');
    const bucketId = stack.getLogicalId(this.bucket.node.defaultChild as CfnElement);
    const grant = 'aws-cdk-lib grants the deployment handler read on the CDK asset bucket (the zipped build) and read/write on the dashboard bucket only; the wildcards are object keys and S3 action families of those two buckets.';
    const acks: Record<string, string> = {
      'AwsSolutions-IAM4[Policy::arn:<AWS::Partition>:iam::aws:policy/service-role/AWSLambdaBasicExecutionRole]':
        'The deploy-time handler of aws-cdk-lib BucketDeployment writes its own logs with the AWS managed basic execution policy; it runs only while CloudFormation deploys.',
      'AwsSolutions-IAM5[Action::s3:GetObject*]': grant,
      'AwsSolutions-IAM5[Action::s3:GetBucket*]': grant,
      'AwsSolutions-IAM5[Action::s3:List*]': grant,
      'AwsSolutions-IAM5[Action::s3:DeleteObject*]': grant,
      'AwsSolutions-IAM5[Action::s3:Abort*]': grant,
      'AwsSolutions-IAM5[Resource::arn:<AWS::Partition>:s3:::cdk-hnb659fds-assets-<AWS::AccountId>-<AWS::Region>/*]': grant,
      [`AwsSolutions-IAM5[Resource::<${bucketId}.Arn>/*]`]: grant,
      'AwsSolutions-IAM5[Resource::*]':
        'cloudfront:CreateInvalidation and GetInvalidation, which the deployment calls to refresh index.html and config.json, granted on * by aws-cdk-lib BucketDeployment.',
      'AwsSolutions-L1': 'The handler is aws-cdk-lib BucketDeployment code, pinned by the library to the runtime it ships and tests with; it runs only during deployments.',
      'Serverless-LambdaLatestVersion': 'The handler is aws-cdk-lib BucketDeployment code, pinned by the library to the runtime it ships and tests with; it runs only during deployments.',
      'Serverless-LambdaDLQ': 'CloudFormation invokes the deployment handler as a custom resource and waits for it: a failure fails the deployment, there is no asynchronous event to dead-letter.',
      'Serverless-LambdaTracing': 'A deploy-time custom-resource handler: a trace of it would join no request of the service, and CloudFormation reports its failures.',
    };
    for (const [id, reason] of Object.entries(acks)) Validations.of(handler).acknowledge({ id, reason });
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
          execFileSync(join(projectRoot, 'node_modules/.bin/tsx'), [join(root, 'scripts/build.ts'), outputDir], { cwd: projectRoot, stdio: 'inherit' });
          return true;
        },
      },
    },
  });
}
