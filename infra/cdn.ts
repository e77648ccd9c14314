import { join } from 'node:path';
import { CfnOutput, DockerImage, Duration, RemovalPolicy, Stack, Validations } from 'aws-cdk-lib';
import {
  AllowedMethods, CachePolicy, Distribution, HttpVersion, PriceClass, ResponseHeadersPolicy, ViewerProtocolPolicy,
} from 'aws-cdk-lib/aws-cloudfront';
import { S3BucketOrigin } from 'aws-cdk-lib/aws-cloudfront-origins';
import { Role, ServicePrincipal } from 'aws-cdk-lib/aws-iam';
import { LogGroup, type RetentionDays } from 'aws-cdk-lib/aws-logs';
import { BlockPublicAccess, Bucket, BucketEncryption, ObjectOwnership } from 'aws-cdk-lib/aws-s3';
import { BucketDeployment, CacheControl, Source } from 'aws-cdk-lib/aws-s3-deployment';
import { Construct } from 'constructs';
import { buildWidget } from '../web/widget/build.ts';

export interface CdnProps {
  /** The repository root (web/widget is built from there). */
  projectRoot: string;
  logRetention: RetentionDays;
}

/**
 * The browser's files: a private bucket that only CloudFront reads (origin access control), and
 * widget.js built from web/widget at synth (the same build as the local runtime's) and copied in.
 */
export class Cdn extends Construct {
  readonly bucket: Bucket;
  readonly distribution: Distribution;
  readonly widgetUrl: string;

  constructor(scope: Construct, id: string, props: CdnProps) {
    super(scope, id);

    this.bucket = new Bucket(this, 'Files', {
      blockPublicAccess: BlockPublicAccess.BLOCK_ALL,
      encryption: BucketEncryption.S3_MANAGED,
      enforceSSL: true,
      objectOwnership: ObjectOwnership.BUCKET_OWNER_ENFORCED,
      versioned: true,
      // Rebuilt from the repository by every deployment: nothing in it to keep.
      removalPolicy: RemovalPolicy.RETAIN,
    });

    this.distribution = new Distribution(this, 'Distribution', {
      comment: `${Stack.of(this).stackName}: widget.js`,
      defaultBehavior: {
        origin: S3BucketOrigin.withOriginAccessControl(this.bucket),
        viewerProtocolPolicy: ViewerProtocolPolicy.REDIRECT_TO_HTTPS,
        allowedMethods: AllowedMethods.ALLOW_GET_HEAD_OPTIONS,
        cachePolicy: CachePolicy.CACHING_OPTIMIZED,
        // Any site may load the script; nosniff, HSTS and the other security headers come along.
        responseHeadersPolicy: ResponseHeadersPolicy.CORS_ALLOW_ALL_ORIGINS_AND_SECURITY_HEADERS,
        compress: true,
      },
      httpVersion: HttpVersion.HTTP2_AND_3,
      priceClass: PriceClass.PRICE_CLASS_100,
    });

    // The copy runs in CDK's own custom-resource function; an own role and log group instead of
    // the default role with AWSLambdaBasicExecutionRole (which may write to every log group).
    const deployRole = new Role(this, 'DeployRole', { assumedBy: new ServicePrincipal('lambda.amazonaws.com') });
    const deployLogs = new LogGroup(this, 'DeployLogs', { retention: props.logRetention });
    deployLogs.grantWrite(deployRole);

    const deployment = new BucketDeployment(this, 'Widget', {
      role: deployRole,
      logGroup: deployLogs,
      sources: [Source.asset(join(props.projectRoot, 'web/widget'), {
        exclude: ['dist'],
        bundling: {
          // Never used: the local build below always succeeds or throws, so synth needs no Docker.
          image: DockerImage.fromRegistry('public.ecr.aws/docker/library/node:24'),
          local: { tryBundle: (outputDir) => { buildWidget(outputDir); return true; } },
        },
      })],
      destinationBucket: this.bucket,
      // Other files (a dashboard) may share the bucket: keep what this deployment did not write.
      prune: false,
      // Short, as the local runtime serves it: a new release reaches every page within minutes.
      cacheControl: [CacheControl.setPublic(), CacheControl.maxAge(Duration.minutes(5))],
      contentType: 'text/javascript; charset=utf-8',
      distribution: this.distribution,
      distributionPaths: ['/widget.js'],
    });

    acknowledgeFindings(this, deployment);

    this.widgetUrl = `https://${this.distribution.distributionDomainName}/widget.js`;
    new CfnOutput(Stack.of(this), 'WidgetUrl', { value: this.widgetUrl, description: 'The widget script to embed (<script src=... data-widget-key=...>)' });
  }
}

/** What cdk-nag reports on a public static file's CDN and on CDK's deployment function, each with why it stays. */
function acknowledgeFindings(cdn: Cdn, deployment: BucketDeployment): void {
  Validations.of(cdn.bucket).acknowledge({
    id: 'AwsSolutions-S1',
    reason: 'The bucket holds only the public widget script, written by deployments and read only by CloudFront (origin access control); the API access logs record every use of the widget.',
  });
  const distribution = Validations.of(cdn.distribution);
  distribution.acknowledge({
    id: 'AwsSolutions-CFR1',
    reason: 'widget.js is embedded by tenants\' sites for their customers anywhere; restricting countries would break the chat for them.',
  });
  distribution.acknowledge({
    id: 'AwsSolutions-CFR2',
    reason: 'The distribution serves one static, public, cacheable script and accepts only GET, HEAD and OPTIONS; the API behind the widget has its own throttling.',
  });
  distribution.acknowledge({
    id: 'AwsSolutions-CFR3',
    reason: 'Access logs of a public static script add no audit value; the widget\'s API calls are logged by the HTTP API stage, one JSON line per request.',
  });
  distribution.acknowledge({
    id: 'AwsSolutions-CFR4',
    reason: 'Served on the default cloudfront.net certificate, whose TLS policy CloudFront fixes; a custom domain with its own certificate would set TLSv1.2_2021.',
  });
  // The singleton function BucketDeployment creates at stack level, and the role given to it.
  const handler = Stack.of(cdn).node.children.find((c) => c.node.id.startsWith('Custom::CDKBucketDeployment'));
  if (!handler) throw new Error('BucketDeployment created no handler function');
  const fn = Validations.of(handler);
  fn.acknowledge({
    id: 'AwsSolutions-L1',
    reason: 'CDK\'s own BucketDeployment handler: its runtime is chosen by aws-cdk-lib and moves with its upgrades; it runs only during deployments.',
  });
  fn.acknowledge({ id: 'Serverless-LambdaLatestVersion', reason: 'CDK\'s own BucketDeployment handler, its runtime chosen by aws-cdk-lib; it runs only during deployments, as a CloudFormation custom resource.' });
  fn.acknowledge({ id: 'Serverless-LambdaDLQ', reason: 'Invoked by CloudFormation as a custom resource: a failure fails the deployment, which reports it; there is no event to dead-letter.' });
  fn.acknowledge({ id: 'Serverless-LambdaTracing', reason: 'CDK\'s own BucketDeployment handler copies files during deployments; it serves no request to trace and offers no tracing option.' });
  Validations.of(deployment.handlerRole).acknowledge({
    id: 'AwsSolutions-IAM5[Action::s3:GetObject*]',
    reason: 'BucketDeployment\'s own grants: read the asset (the built widget) from the CDK assets bucket, write it to the widget bucket.',
  });
  for (const id of ['AwsSolutions-IAM5[Action::s3:GetBucket*]', 'AwsSolutions-IAM5[Action::s3:List*]', 'AwsSolutions-IAM5[Action::s3:DeleteObject*]', 'AwsSolutions-IAM5[Action::s3:Abort*]']) {
    Validations.of(deployment.handlerRole).acknowledge({
      id, reason: 'BucketDeployment\'s own grant (aws-cdk-lib grantRead/grantReadWrite), limited to the CDK assets bucket and the widget bucket.',
    });
  }
  Validations.of(deployment.handlerRole).acknowledge({
    id: 'AwsSolutions-IAM5[Resource::arn:<AWS::Partition>:s3:::cdk-hnb659fds-assets-<AWS::AccountId>-<AWS::Region>/*]',
    reason: 'The CDK bootstrap assets bucket, from which BucketDeployment reads the built widget; asset object keys are content hashes, known only at deploy time.',
  });
  Validations.of(deployment.handlerRole).acknowledge({
    id: 'AwsSolutions-IAM5[Resource::*]',
    reason: 'Only cloudfront:CreateInvalidation and cloudfront:GetInvalidation, which BucketDeployment grants on * to invalidate /widget.js after a copy.',
  });
  Validations.of(deployment.handlerRole).acknowledge({
    id: 'AwsSolutions-IAM5[Resource::<CdnFiles23D3EB2C.Arn>/*]',
    reason: 'The objects of the widget bucket, which BucketDeployment writes; the bucket holds only the browser files of this stack.',
  });
}
