import { join } from 'node:path';
import { CfnOutput, DockerImage, Duration, RemovalPolicy, Stack, Validations } from 'aws-cdk-lib';
import {
  AllowedMethods,
  CachePolicy,
  Distribution,
  HeadersFrameOption,
  HeadersReferrerPolicy,
  HttpVersion,
  PriceClass,
  ResponseHeadersPolicy,
  ViewerProtocolPolicy,
} from 'aws-cdk-lib/aws-cloudfront';
import { S3BucketOrigin } from 'aws-cdk-lib/aws-cloudfront-origins';
import { Role, ServicePrincipal } from 'aws-cdk-lib/aws-iam';
import { LogGroup, type RetentionDays } from 'aws-cdk-lib/aws-logs';
import { BlockPublicAccess, Bucket, BucketEncryption, ObjectOwnership } from 'aws-cdk-lib/aws-s3';
import { BucketDeployment, type BucketDeploymentProps, CacheControl, Source } from 'aws-cdk-lib/aws-s3-deployment';
import { Construct } from 'constructs';
import { buildWidget } from '../web/widget/build.ts';

export interface CdnProps {
  /** The repository root (web/widget is built from there). */
  projectRoot: string;
  logRetention: RetentionDays;
}

/**
 * The browser's files on one CloudFront distribution over one private bucket that only CloudFront
 * reads (origin access control): the dashboard at `/` (its build and
 * config.json are deployed by infra/dashboard.ts through deploy()) and widget.js, built from
 * web/widget at synth (the same build as the local runtime's). As in the local runtime, both share
 * an origin: the dashboard's embed snippet points at this distribution's widget.js. Each path gets
 * its own headers: the dashboard a strict CSP and no framing, widget.js CORS for any site.
 */
export class Cdn extends Construct {
  readonly bucket: Bucket;
  readonly distribution: Distribution;
  /** `https://<distribution domain>` */
  readonly url: string;
  readonly widgetUrl: string;
  private readonly deployRole: Role;
  private readonly deployLogs: LogGroup;

  constructor(scope: Construct, id: string, props: CdnProps) {
    super(scope, id);

    this.bucket = new Bucket(this, 'Files', {
      blockPublicAccess: BlockPublicAccess.BLOCK_ALL,
      encryption: BucketEncryption.S3_MANAGED,
      enforceSSL: true,
      objectOwnership: ObjectOwnership.BUCKET_OWNER_ENFORCED,
      versioned: true,
      // Rebuilt from the repository by every deployment, but emptying it on stack deletion would
      // take one more custom-resource function: a deleted stack leaves it behind instead.
      removalPolicy: RemovalPolicy.RETAIN,
    });

    const pageHeaders = new ResponseHeadersPolicy(this, 'DashboardHeaders', {
      comment: 'Support dashboard: security headers',
      securityHeadersBehavior: {
        contentSecurityPolicy: {
          override: true,
          // The API, the Cognito endpoints and the live channel are on AWS domains.
          contentSecurityPolicy:
            "default-src 'self'; connect-src 'self' https://*.amazonaws.com https://*.amazoncognito.com wss://*.amazonaws.com; img-src 'self' data:; style-src 'self' 'unsafe-inline'; frame-ancestors 'none'; base-uri 'self'; form-action 'self'",
        },
        contentTypeOptions: { override: true },
        frameOptions: { frameOption: HeadersFrameOption.DENY, override: true },
        referrerPolicy: { referrerPolicy: HeadersReferrerPolicy.NO_REFERRER, override: true },
        strictTransportSecurity: { accessControlMaxAge: Duration.days(365), includeSubdomains: true, override: true },
      },
    });

    const origin = S3BucketOrigin.withOriginAccessControl(this.bucket);
    this.distribution = new Distribution(this, 'Distribution', {
      comment: `${Stack.of(this).stackName}: dashboard and widget.js`,
      defaultRootObject: 'index.html',
      defaultBehavior: {
        origin,
        viewerProtocolPolicy: ViewerProtocolPolicy.REDIRECT_TO_HTTPS,
        allowedMethods: AllowedMethods.ALLOW_GET_HEAD,
        cachePolicy: CachePolicy.CACHING_OPTIMIZED,
        responseHeadersPolicy: pageHeaders,
        compress: true,
      },
      additionalBehaviors: {
        '/widget.js': {
          origin,
          viewerProtocolPolicy: ViewerProtocolPolicy.REDIRECT_TO_HTTPS,
          allowedMethods: AllowedMethods.ALLOW_GET_HEAD_OPTIONS,
          cachePolicy: CachePolicy.CACHING_OPTIMIZED,
          // Any site may load the script; nosniff, HSTS and the other security headers come along.
          responseHeadersPolicy: ResponseHeadersPolicy.CORS_ALLOW_ALL_ORIGINS_AND_SECURITY_HEADERS,
          compress: true,
        },
      },
      // The dashboard's client-side routes (/tickets/tkt_...) are not files: the app answers them.
      // Through OAC a missing object is a 403.
      errorResponses: [403, 404].map((httpStatus) => ({
        httpStatus,
        responseHttpStatus: 200,
        responsePagePath: '/index.html',
        ttl: Duration.seconds(0),
      })),
      httpVersion: HttpVersion.HTTP2_AND_3,
      priceClass: PriceClass.PRICE_CLASS_100,
    });
    this.url = `https://${this.distribution.distributionDomainName}`;

    // Copies run in CDK's own custom-resource function, one for both deployments; an own role and
    // log group instead of the default role with AWSLambdaBasicExecutionRole (which may write to
    // every log group).
    this.deployRole = new Role(this, 'DeployRole', { assumedBy: new ServicePrincipal('lambda.amazonaws.com') });
    this.deployLogs = new LogGroup(this, 'DeployLogs', { retention: props.logRetention });
    this.deployLogs.grantWrite(this.deployRole);

    const deployment = this.deploy(this, 'Widget', {
      sources: [
        Source.asset(join(props.projectRoot, 'web/widget'), {
          exclude: ['dist'],
          bundling: {
            // Never used: the local build below always succeeds or throws, so synth needs no Docker.
            image: DockerImage.fromRegistry('public.ecr.aws/docker/library/node:24'),
            local: {
              tryBundle: (outputDir) => {
                buildWidget(outputDir);
                return true;
              },
            },
          },
        }),
      ],
      // The dashboard shares the bucket: keep what this deployment did not write.
      prune: false,
      // Short, as the local runtime serves it: a new release reaches every page within minutes.
      cacheControl: [CacheControl.setPublic(), CacheControl.maxAge(Duration.minutes(5))],
      contentType: 'text/javascript; charset=utf-8',
      distributionPaths: ['/widget.js'],
    });

    acknowledgeFindings(this, deployment);

    this.widgetUrl = `${this.url}/widget.js`;
    new CfnOutput(Stack.of(this), 'WidgetUrl', {
      value: this.widgetUrl,
      description: 'The widget script to embed (<script src=... data-widget-key=...>)',
    });
  }

  /** Copies files into the bucket and invalidates their paths, through the shared deployment function. */
  deploy(
    scope: Construct,
    id: string,
    props: Omit<BucketDeploymentProps, 'destinationBucket' | 'distribution' | 'role' | 'logGroup' | 'memoryLimit'>,
  ): BucketDeployment {
    return new BucketDeployment(scope, id, {
      ...props,
      destinationBucket: this.bucket,
      distribution: this.distribution,
      role: this.deployRole,
      logGroup: this.deployLogs,
    });
  }
}

/** What cdk-nag reports on a CDN of public static files and on CDK's deployment function, each with why it stays. */
function acknowledgeFindings(cdn: Cdn, deployment: BucketDeployment): void {
  Validations.of(cdn.bucket).acknowledge({
    id: 'AwsSolutions-S1',
    reason:
      "The bucket holds only public build files (widget.js, the dashboard's build and config.json), written by deployments and read only by CloudFront (origin access control); object access logs would record nothing but CloudFront fetches, and the API access logs record every use of the data.",
  });
  const distribution = Validations.of(cdn.distribution);
  distribution.acknowledge({
    id: 'AwsSolutions-CFR1',
    reason:
      "widget.js is embedded by tenants' sites for their customers anywhere, and support teams use the dashboard wherever they work; restricting countries would break both. Sign-in and the API enforce access, not geography.",
  });
  distribution.acknowledge({
    id: 'AwsSolutions-CFR2',
    reason:
      'The distribution serves static, public, cacheable build files only and accepts only GET and HEAD (and OPTIONS for widget.js); every request that reads or changes data goes to the API, which has its own throttling and authorizer. A web ACL here would bill per request for no protected resource.',
  });
  distribution.acknowledge({
    id: 'AwsSolutions-CFR3',
    reason:
      "Access logs of public static files add no audit value; the widget's and the dashboard's API calls are logged by the HTTP API stage, one JSON line per request, and sign-ins by Cognito.",
  });
  distribution.acknowledge({
    id: 'AwsSolutions-CFR4',
    reason:
      'Served on the default cloudfront.net certificate, whose TLS policy CloudFront fixes; a custom domain with its own certificate would set TLSv1.2_2021.',
  });
  // The singleton function BucketDeployment creates at stack level, and the role given to it.
  const handler = Stack.of(cdn).node.children.find((c) => c.node.id.startsWith('Custom::CDKBucketDeployment'));
  if (!handler) throw new Error('BucketDeployment created no handler function');
  const fn = Validations.of(handler);
  fn.acknowledge({
    id: 'AwsSolutions-L1',
    reason:
      "CDK's own BucketDeployment handler: its runtime is chosen by aws-cdk-lib and moves with its upgrades; it runs only during deployments.",
  });
  fn.acknowledge({
    id: 'Serverless-LambdaLatestVersion',
    reason:
      "CDK's own BucketDeployment handler, its runtime chosen by aws-cdk-lib; it runs only during deployments, as a CloudFormation custom resource.",
  });
  fn.acknowledge({
    id: 'Serverless-LambdaDLQ',
    reason:
      'Invoked by CloudFormation as a custom resource: a failure fails the deployment, which reports it; there is no event to dead-letter.',
  });
  fn.acknowledge({
    id: 'Serverless-LambdaTracing',
    reason:
      "CDK's own BucketDeployment handler copies files during deployments; it serves no request to trace and offers no tracing option.",
  });
  Validations.of(deployment.handlerRole).acknowledge({
    id: 'AwsSolutions-IAM5[Action::s3:GetObject*]',
    reason:
      "BucketDeployment's own grants: read the assets (the built widget, the dashboard build and its config.json) from the CDK assets bucket, write them to this bucket.",
  });
  for (const id of [
    'AwsSolutions-IAM5[Action::s3:GetBucket*]',
    'AwsSolutions-IAM5[Action::s3:List*]',
    'AwsSolutions-IAM5[Action::s3:DeleteObject*]',
    'AwsSolutions-IAM5[Action::s3:Abort*]',
  ]) {
    Validations.of(deployment.handlerRole).acknowledge({
      id,
      reason:
        "BucketDeployment's own grant (aws-cdk-lib grantRead/grantReadWrite), limited to the CDK assets bucket and this bucket.",
    });
  }
  Validations.of(deployment.handlerRole).acknowledge({
    id: 'AwsSolutions-IAM5[Resource::arn:<AWS::Partition>:s3:::cdk-hnb659fds-assets-<AWS::AccountId>-<AWS::Region>/*]',
    reason:
      'The CDK bootstrap assets bucket, from which BucketDeployment reads the built widget and dashboard; asset object keys are content hashes, known only at deploy time.',
  });
  Validations.of(deployment.handlerRole).acknowledge({
    id: 'AwsSolutions-IAM5[Resource::*]',
    reason:
      'Only cloudfront:CreateInvalidation and cloudfront:GetInvalidation, which BucketDeployment grants on * to invalidate /widget.js, /index.html and /config.json after a copy.',
  });
  Validations.of(deployment.handlerRole).acknowledge({
    id: 'AwsSolutions-IAM5[Resource::<CdnFiles23D3EB2C.Arn>/*]',
    reason:
      'The objects of this bucket, which BucketDeployment writes; the bucket holds only the browser files of this stack.',
  });
}
