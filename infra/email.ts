import { readFileSync } from 'node:fs';
import { type CfnElement, CustomResource, Duration, Names, RemovalPolicy, Stack, Validations } from 'aws-cdk-lib';
import { Effect, PolicyStatement, Role, ServicePrincipal } from 'aws-cdk-lib/aws-iam';
import {
  Architecture,
  Code,
  Function as LambdaFunction,
  LoggingFormat,
  Runtime,
  Tracing,
} from 'aws-cdk-lib/aws-lambda';
import { SqsEventSource } from 'aws-cdk-lib/aws-lambda-event-sources';
import { LogGroup, type RetentionDays } from 'aws-cdk-lib/aws-logs';
import { BlockPublicAccess, Bucket, BucketEncryption, ObjectOwnership } from 'aws-cdk-lib/aws-s3';
import {
  ConfigurationSet,
  ConfigurationSetEventDestination,
  EmailSendingEvent,
  EventDestination,
  ReceiptRuleSet,
} from 'aws-cdk-lib/aws-ses';
import { Lambda as LambdaAction, LambdaInvocationType, S3 as S3Action } from 'aws-cdk-lib/aws-ses-actions';
import { Topic } from 'aws-cdk-lib/aws-sns';
import { SqsSubscription } from 'aws-cdk-lib/aws-sns-subscriptions';
import { Queue, QueueEncryption } from 'aws-cdk-lib/aws-sqs';
import { Provider } from 'aws-cdk-lib/custom-resources';
import { Construct } from 'constructs';
import { bindTable, ServiceFunction } from './function.ts';
import { acknowledgeQueueConsumer } from './events.ts';
import type { DataTable } from './table.ts';

/** Where SES's S3 action stores inbound mail; shared/data/keys.ts (emailKeys.inboundObject) reads the same prefix. */
const INBOUND_PREFIX = 'inbound/';
/** Where the tenant export route writes (shared/data/keys.ts, tenantExportObject). */
const EXPORTS_PREFIX = 'exports/';

/**
 * The mail bucket, in the core stack: SES stores inbound messages in it, the receive function keeps
 * their attachments there, and the conversation route presigns links to both.
 */
export class MailBucket extends Construct {
  readonly bucket: Bucket;

  constructor(scope: Construct, id: string) {
    super(scope, id);
    this.bucket = new Bucket(this, 'Bucket', {
      encryption: BucketEncryption.S3_MANAGED,
      blockPublicAccess: BlockPublicAccess.BLOCK_ALL,
      objectOwnership: ObjectOwnership.BUCKET_OWNER_ENFORCED,
      enforceSSL: true,
      versioned: false,
      // Customers' mail: kept when the stack goes, like the table.
      removalPolicy: RemovalPolicy.RETAIN,
      // Tenant exports are fetched through a link that lives minutes: the files go after a day.
      lifecycleRules: [{ id: 'TenantExports', prefix: EXPORTS_PREFIX, expiration: Duration.days(1) }],
    });
    Validations.of(this.bucket).acknowledge({
      id: 'AwsSolutions-S1',
      reason:
        'Objects are written only by SES and the email functions, read only through presigned links the API issues to members; CloudTrail data events, not a second access-log bucket, are the audit trail to enable where required.',
    });
  }

  /** Lets a route's function presign GET links to the bucket's objects (the link is signed with its role). */
  grantLinks(f: ServiceFunction): void {
    f.fn.addEnvironment('MAIL_BUCKET', this.bucket.bucketName);
    this.grant(
      f,
      ['s3:GetObject'],
      ['inbound/*', 'tenants/*'],
      "A link may name any stored message or attachment: the object keys are made per message at run time; the function reads the object key from a conversation of the caller's tenant before it signs a link.",
    );
  }

  /** Lets the export function write tenants' exports, under `exports/` only. */
  grantExports(f: ServiceFunction): void {
    f.fn.addEnvironment('MAIL_BUCKET', this.bucket.bucketName);
    this.grant(
      f,
      ['s3:PutObject'],
      [`${EXPORTS_PREFIX}*`],
      "An export's object key is made per export at run time (exports/<tenant>/<id>.jsonl); the tenant and the export are named by the job the owner started.",
    );
  }

  /** Lets a route's function presign links to a tenant's export, under `exports/` only. */
  grantExportLinks(f: ServiceFunction): void {
    f.fn.addEnvironment('MAIL_BUCKET', this.bucket.bucketName);
    this.grant(
      f,
      ['s3:GetObject'],
      [`${EXPORTS_PREFIX}*`],
      "An export's object key is made per export at run time (exports/<tenant>/<id>.jsonl); the function reads it from a job of the caller's tenant before it signs a link.",
    );
  }

  /** Lets a route's function delete a customer's stored mail (erasure): originals and attachments. */
  grantErasure(f: ServiceFunction): void {
    f.fn.addEnvironment('MAIL_BUCKET', this.bucket.bucketName);
    this.grant(
      f,
      ['s3:DeleteObject'],
      ['inbound/*', 'tenants/*'],
      "The object keys are read from the conversations of the customer being erased, in the caller's tenant; they are made per message at run time.",
    );
  }

  /** Object actions on key prefixes, with the wildcard finding acknowledged for `reason`. */
  grant(f: ServiceFunction, actions: string[], prefixes: string[], reason: string): void {
    f.role.addToPolicy(
      new PolicyStatement({
        effect: Effect.ALLOW,
        actions,
        resources: prefixes.map((p) => this.bucket.arnForObjects(p)),
      }),
    );
    for (const p of prefixes) Validations.of(f.role).acknowledge({ id: this.objectsFinding(f, p), reason });
  }

  /** cdk-nag names a wildcard finding by the resource as written: the bucket's ARN, or its reference from a nested stack. */
  objectsFinding(f: ServiceFunction, prefix: string): string {
    const home = Stack.of(this.bucket);
    const id = home.getLogicalId(this.bucket.node.defaultChild as CfnElement);
    const cfn = this.bucket.node.defaultChild as CfnElement;
    const ref = Stack.of(f) === home ? `<${id}.Arn>` : `<referenceto${Names.uniqueId(cfn)}Arn>`;
    return `AwsSolutions-IAM5[Resource::${ref}/${prefix}]`;
  }
}

export interface EmailChannelProps {
  data: DataTable;
  mail: MailBucket;
  /** The tenants' inbound domain (`<slug>@<domain>`), verified in SES with its MX record at SES's inbound endpoint. */
  inboundDomain?: string;
  /**
   * Make the stack's receipt rule set the region's active one at deploy (default true). False for an
   * account whose active set is managed elsewhere: the stack's set is then activated, or its rule
   * copied into that set, by hand.
   */
  activateRuleSet?: boolean;
  receiveEntry: string;
  sendEntry: string;
  eventsEntry: string;
  /** The dashboard's address, the sign-in link of an invitation email. */
  dashboardUrl?: string;
  projectRoot: string;
  logRetention: RetentionDays;
}

/**
 * The email channel, in its own nested stack: SES's receipt rule (S3 action, then the receive
 * function), the outgoing queue and the sender function (SES v2 SendEmail through a configuration
 * set), and the configuration set's events through SNS and SQS to the events function. SES has one
 * active receipt rule set per account and region: a custom resource activates the stack's at deploy
 * and, when the stack goes, deactivates it only if it is still the active one.
 */
export class EmailChannel extends Construct {
  readonly receive: ServiceFunction;
  readonly send: ServiceFunction;
  readonly events: ServiceFunction;
  readonly outQueue: Queue;
  readonly outDeadLetters: Queue;
  readonly eventsQueue: Queue;
  readonly eventsDeadLetters: Queue;
  readonly configurationSet: ConfigurationSet;
  readonly ruleSet: ReceiptRuleSet;
  /** The custom resource that activates the rule set; absent with `activateRuleSet: false`. */
  readonly activation?: CustomResource;
  /** cdk-nag's name for the provider framework's grant to invoke the activation function (any version). */
  activationFinding?: string;

  constructor(scope: Construct, id: string, props: EmailChannelProps) {
    super(scope, id);
    const { bucket } = props.mail;
    const common = { projectRoot: props.projectRoot, logRetention: props.logRetention };
    const domain: Record<string, string> = props.inboundDomain ? { EMAIL_INBOUND_DOMAIN: props.inboundDomain } : {};
    this.configurationSet = new ConfigurationSet(this, 'ConfigurationSet', {});

    // In: SES stores the message, then invokes the function with the receipt's verdicts.
    this.receive = new ServiceFunction(this, 'Receive', {
      ...common,
      entry: props.receiveEntry,
      description: 'SES receipt rule: an inbound email into its conversation',
      timeout: Duration.seconds(30),
      environment: { MAIL_BUCKET: bucket.bucketName, ...domain },
    });
    bindTable(this.receive, props.data, 'write');
    const perMessage =
      "Inbound messages and their attachments have keys made per message at run time (SES's message id, an attachment id), under these prefixes only.";
    props.mail.grant(this.receive, ['s3:GetObject'], [`${INBOUND_PREFIX}*`], perMessage);
    props.mail.grant(this.receive, ['s3:PutObject', 's3:DeleteObject'], ['tenants/*'], perMessage);
    // A refusal for a cap is answered with a bounce mail (SES has said 250 before the function runs).
    this.receive.role.addToPolicy(
      new PolicyStatement({
        effect: Effect.ALLOW,
        actions: ['ses:SendEmail', 'ses:SendRawEmail'],
        resources: [Stack.of(this).formatArn({ service: 'ses', resource: 'identity', resourceName: '*' })],
      }),
    );
    const rules = new ReceiptRuleSet(this, 'Rules', {});
    this.ruleSet = rules;
    rules.addRule('Inbound', {
      ...(props.inboundDomain ? { recipients: [props.inboundDomain] } : {}),
      scanEnabled: true,
      actions: [
        new S3Action({ bucket, objectKeyPrefix: INBOUND_PREFIX }),
        new LambdaAction({ function: this.receive.fn, invocationType: LambdaInvocationType.EVENT }),
      ],
    });

    // Out: the outbox's `email.send` -> this queue -> the sender.
    const queue = (name: string, dlq: Queue, visibility: number) =>
      new Queue(this, name, {
        visibilityTimeout: Duration.seconds(visibility),
        encryption: QueueEncryption.SQS_MANAGED,
        enforceSSL: true,
        deadLetterQueue: { queue: dlq, maxReceiveCount: 5 },
      });
    const deadLetters = (name: string) =>
      new Queue(this, name, {
        retentionPeriod: Duration.days(14),
        encryption: QueueEncryption.SQS_MANAGED,
        enforceSSL: true,
      });
    this.outDeadLetters = deadLetters('OutDeadLetters');
    this.outQueue = queue('OutQueue', this.outDeadLetters, 180);
    this.send = new ServiceFunction(this, 'Send', {
      ...common,
      entry: props.sendEntry,
      description: 'Sends an email reply through SES v2',
      timeout: Duration.seconds(30),
      environment: {
        SES_CONFIGURATION_SET: this.configurationSet.configurationSetName,
        ...domain,
        ...(props.dashboardUrl ? { DASHBOARD_URL: props.dashboardUrl } : {}),
      },
    });
    bindTable(this.send, props.data, 'write');
    const stack = Stack.of(this);
    this.send.role.addToPolicy(
      new PolicyStatement({
        effect: Effect.ALLOW,
        actions: ['ses:SendEmail', 'ses:SendRawEmail'],
        resources: [
          stack.formatArn({ service: 'ses', resource: 'identity', resourceName: '*' }),
          stack.formatArn({
            service: 'ses',
            resource: 'configuration-set',
            resourceName: this.configurationSet.configurationSetName,
          }),
        ],
      }),
    );
    this.send.fn.addEventSource(new SqsEventSource(this.outQueue, { batchSize: 10, reportBatchItemFailures: true }));

    // SES's events for what was sent: configuration set -> SNS -> SQS -> the events function.
    const topic = new Topic(this, 'SendingEvents', { enforceSSL: true });
    new ConfigurationSetEventDestination(this, 'ToTopic', {
      configurationSet: this.configurationSet,
      destination: EventDestination.snsTopic(topic),
      events: [
        EmailSendingEvent.SEND,
        EmailSendingEvent.DELIVERY,
        EmailSendingEvent.BOUNCE,
        EmailSendingEvent.COMPLAINT,
        EmailSendingEvent.REJECT,
      ],
    });
    this.eventsDeadLetters = deadLetters('EventsDeadLetters');
    this.eventsQueue = queue('EventsQueue', this.eventsDeadLetters, 60);
    // What SNS cannot deliver to the queue lands in the same dead-letter queue as what the function cannot handle.
    topic.addSubscription(new SqsSubscription(this.eventsQueue, { deadLetterQueue: this.eventsDeadLetters }));
    this.events = new ServiceFunction(this, 'Events', {
      ...common,
      entry: props.eventsEntry,
      description: 'SES sending events: delivery status, bounces and complaints',
    });
    bindTable(this.events, props.data, 'write');
    this.events.fn.addEventSource(
      new SqsEventSource(this.eventsQueue, { batchSize: 10, reportBatchItemFailures: true }),
    );

    if (props.activateRuleSet !== false) this.activation = this.activate(rules, props.logRetention);
    this.acknowledge();
  }

  /**
   * SetActiveReceiptRuleSet at create and update; at delete, DescribeActiveReceiptRuleSet first, and
   * the set deactivated only if it is still ours. A conditional delete is more than one SDK call, so
   * this is a small handler under the provider framework rather than an AwsCustomResource; it runs
   * inline on the Lambda runtime, whose SDK has the SES v1 client the receipt rules need.
   */
  private activate(rules: ReceiptRuleSet, logRetention: RetentionDays): CustomResource {
    const logs = new LogGroup(this, 'ActivationLogs', { retention: logRetention });
    const role = new Role(this, 'ActivationRole', { assumedBy: new ServicePrincipal('lambda.amazonaws.com') });
    logs.grantWrite(role);
    role.addToPolicy(
      new PolicyStatement({
        effect: Effect.ALLOW,
        actions: ['ses:SetActiveReceiptRuleSet', 'ses:DescribeActiveReceiptRuleSet'],
        resources: ['*'],
      }),
    );
    const fn = new LambdaFunction(this, 'Activation', {
      runtime: Runtime.NODEJS_24_X,
      architecture: Architecture.ARM_64,
      handler: 'index.handler',
      timeout: Duration.seconds(30),
      memorySize: 256,
      tracing: Tracing.ACTIVE,
      code: Code.fromInline(readFileSync(new URL('./handlers/active-rule-set.cjs', import.meta.url), 'utf8')),
      description:
        "Deploy time: makes the stack's SES receipt rule set the active one, and releases it if still active when the stack goes",
      role,
      logGroup: logs,
      loggingFormat: LoggingFormat.JSON,
    });
    // The framework's function gets its own role too (the default one attaches AWSLambdaBasicExecutionRole).
    const providerLogs = new LogGroup(this, 'ActivationProviderLogs', { retention: logRetention });
    const providerRole = new Role(this, 'ActivationProviderRole', {
      assumedBy: new ServicePrincipal('lambda.amazonaws.com'),
    });
    providerLogs.grantWrite(providerRole);
    const provider = new Provider(this, 'ActivationProvider', {
      onEventHandler: fn,
      logGroup: providerLogs,
      frameworkOnEventRole: providerRole,
    });
    const resource = new CustomResource(this, 'ActiveRuleSet', {
      serviceToken: provider.serviceToken,
      resourceType: 'Custom::SesActiveReceiptRuleSet',
      properties: { RuleSetName: rules.receiptRuleSetName },
    });
    // Activated once its rule exists; released before the set is deleted (SES refuses to delete the active set).
    resource.node.addDependency(rules);

    Validations.of(role).acknowledge({
      id: 'AwsSolutions-IAM5[Resource::*]',
      reason:
        "ses:SetActiveReceiptRuleSet and ses:DescribeActiveReceiptRuleSet act on the account's active rule set and support no resource-level permissions; xray:PutTraceSegments and xray:PutTelemetryRecords (active tracing) neither.",
    });
    this.activationFinding = `AwsSolutions-IAM5[Resource::<${Stack.of(this).getLogicalId(fn.node.defaultChild as CfnElement)}.Arn>:*]`;
    Validations.of(providerRole).acknowledge({
      id: this.activationFinding,
      reason:
        "The provider framework invokes the activation function, any version of it (aws-cdk-lib's own grant); nothing else.",
    });
    const deployTime =
      'Invoked by CloudFormation as a custom resource, during deployments only: a failure fails the deployment, which reports it; there is no event to dead-letter.';
    const framework = provider.node.findChild('framework-onEvent');
    Validations.of(fn).acknowledge({ id: 'Serverless-LambdaDLQ', reason: deployTime });
    Validations.of(framework).acknowledge({ id: 'Serverless-LambdaDLQ', reason: deployTime });
    Validations.of(framework).acknowledge({
      id: 'Serverless-LambdaDefaultMemorySize',
      reason:
        "aws-cdk-lib's provider framework function, its settings chosen by aws-cdk-lib; it relays one CloudFormation request per deployment.",
    });
    Validations.of(framework).acknowledge({
      id: 'Serverless-LambdaTracing',
      reason:
        "aws-cdk-lib's provider framework function relays CloudFormation's request to the activation function (which is traced) and offers no tracing option.",
    });
    return resource;
  }

  /** Lets a function read SES's verification of the tenants' sending identities (Settings shows it). */
  grantIdentityReads(f: ServiceFunction): void {
    f.role.addToPolicy(
      new PolicyStatement({
        effect: Effect.ALLOW,
        actions: ['ses:GetEmailIdentity'],
        resources: [Stack.of(f).formatArn({ service: 'ses', resource: 'identity', resourceName: '*' })],
      }),
    );
    Validations.of(f.role).acknowledge({
      id: 'AwsSolutions-IAM5[Resource::arn:<AWS::Partition>:ses:<AWS::Region>:<AWS::AccountId>:identity/*]',
      reason:
        "A tenant's sending address (config.email.fromAddress) is any address of a domain it verified in SES; the identities are the tenants' own, not known at deploy time.",
    });
  }

  /** Lets the event dispatcher queue outgoing mail. */
  grantEnqueue(f: ServiceFunction): void {
    f.fn.addEnvironment('EMAIL_QUEUE_URL', this.outQueue.queueUrl);
    this.outQueue.grantSendMessages(f.role);
  }

  private acknowledge(): void {
    for (const dlq of [this.outDeadLetters, this.eventsDeadLetters]) {
      Validations.of(dlq).acknowledge({
        id: 'Serverless-SQSRedrivePolicy',
        reason: 'A dead-letter queue itself: kept 14 days for inspection, alarmed, consumed by nothing.',
      });
      Validations.of(dlq).acknowledge({
        id: 'AwsSolutions-SQS3',
        reason:
          'This queue is itself a dead-letter destination: nothing consumes it to fail again, and its alarm fires on the first message.',
      });
    }
    const xray =
      'Only xray:PutTraceSegments and xray:PutTelemetryRecords (active tracing) are on Resource *: those X-Ray actions support no resource-level permissions.';
    for (const f of [this.send, this.events]) acknowledgeQueueConsumer(f);
    Validations.of(this.send.role).acknowledge({
      id: 'AwsSolutions-IAM5[Resource::arn:<AWS::Partition>:ses:<AWS::Region>:<AWS::AccountId>:identity/*]',
      reason:
        "A tenant may send from any address of a domain it verified in SES (config.email.fromAddress); the identities are the tenants' own, not known at deploy time.",
    });
    Validations.of(this.receive.role).acknowledge({ id: 'AwsSolutions-IAM5[Resource::*]', reason: xray });
    Validations.of(this.receive.role).acknowledge({
      id: 'AwsSolutions-IAM5[Resource::arn:<AWS::Partition>:ses:<AWS::Region>:<AWS::AccountId>:identity/*]',
      reason:
        "A refused message's bounce goes out from the inbound domain's identity, whose name is the deployment's configuration.",
    });
    Validations.of(this.receive.fn).acknowledge({
      id: 'Serverless-LambdaDLQ',
      reason:
        'Invoked asynchronously by SES with the message already stored in S3: a failed invocation is retried by Lambda and can be replayed from the stored object.',
    });
  }
}
