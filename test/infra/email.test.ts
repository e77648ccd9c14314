import { App } from 'aws-cdk-lib';
import { describe, expect, it } from 'vitest';
import { readConfig } from '#infra/config.ts';
import { emailKeys } from '#shared/data/keys.ts';
import { logicalId, ofType, refId, synth } from './synth.ts';

// The email channel in the template: SES receipt rule -> S3 -> receive function; the outgoing
// queue and sender; the configuration set's events -> SNS -> SQS -> events function.

describe('email channel', () => {
  const s = synth({ emailDomain: 'mail.example.com' });
  const email = s.stack.email;
  const bucketId = logicalId(s, s.stack.mail.bucket);

  it('stores inbound mail in the mail bucket under the prefix the function reads, then invokes it', () => {
    const [[, rule]] = ofType(s, 'AWS::SES::ReceiptRule') as [[string, any]];
    const r = rule.Properties.Rule;
    expect(r.Recipients).toEqual(['mail.example.com']);
    expect(r.Enabled).toBe(true);
    expect(r.ScanEnabled).toBe(true);
    const [store, invoke] = r.Actions;
    expect(refId(store.S3Action.BucketName)).toBe(bucketId);
    expect(`${store.S3Action.ObjectKeyPrefix}x`).toBe(emailKeys.inboundObject('x'));
    expect(refId(invoke.LambdaAction.FunctionArn)).toBe(logicalId(s, email.receive.fn));
    expect(invoke.LambdaAction.InvocationType).toBe('Event');
    // SES may write the bucket for this account only.
    const [[, policy]] = ofType(s, 'AWS::S3::BucketPolicy').filter(
      ([, p]) => refId(p.Properties.Bucket) === bucketId,
    ) as [[string, any]];
    const put = policy.Properties.PolicyDocument.Statement.find(
      (st: any) => st.Principal?.Service === 'ses.amazonaws.com',
    );
    expect(put.Action).toBe('s3:PutObject');
    expect(put.Condition.StringEquals['aws:SourceAccount']).toEqual({ Ref: 'AWS::AccountId' });
  });

  it('keeps the mail bucket private, encrypted, TLS-only and kept when the stack goes', () => {
    const b = s.resources[bucketId]!;
    expect(b.DeletionPolicy).toBe('Retain');
    expect(b.Properties.PublicAccessBlockConfiguration).toEqual({
      BlockPublicAcls: true,
      BlockPublicPolicy: true,
      IgnorePublicAcls: true,
      RestrictPublicBuckets: true,
    });
    expect(
      b.Properties.BucketEncryption.ServerSideEncryptionConfiguration[0].ServerSideEncryptionByDefault.SSEAlgorithm,
    ).toBe('AES256');
    // Tenant exports (exports/) expire after a day; the mail itself is never expired by the bucket.
    expect(b.Properties.LifecycleConfiguration.Rules).toEqual([
      { Id: 'TenantExports', Prefix: 'exports/', ExpirationInDays: 1, Status: 'Enabled' },
    ]);
  });

  it('sends through a configuration set whose events reach the events function through SNS and SQS', () => {
    const setId = logicalId(s, email.configurationSet);
    const sendVars = s.resources[logicalId(s, email.send.fn)]!.Properties.Environment.Variables;
    expect(refId(sendVars.SES_CONFIGURATION_SET)).toBe(setId);
    expect(sendVars.EMAIL_INBOUND_DOMAIN).toBe('mail.example.com');
    const [[, dest]] = ofType(s, 'AWS::SES::ConfigurationSetEventDestination') as [[string, any]];
    expect(refId(dest.Properties.ConfigurationSetName)).toBe(setId);
    expect(dest.Properties.EventDestination.MatchingEventTypes.sort()).toEqual([
      'bounce',
      'complaint',
      'delivery',
      'reject',
      'send',
    ]);
    const topicId = refId(dest.Properties.EventDestination.SnsDestination.TopicARN);
    const [[, sub]] = ofType(s, 'AWS::SNS::Subscription').filter(
      ([, x]) => refId(x.Properties.TopicArn) === topicId,
    ) as [[string, any]];
    expect(sub.Properties.Protocol).toBe('sqs');
    expect(refId(sub.Properties.Endpoint)).toBe(logicalId(s, email.eventsQueue));
    const mappings = ofType(s, 'AWS::Lambda::EventSourceMapping');
    const source = (fn: string) =>
      mappings
        .filter(([, m]) => refId(m.Properties.FunctionName) === fn)
        .map(([, m]) => refId(m.Properties.EventSourceArn));
    expect(source(logicalId(s, email.events.fn))).toEqual([logicalId(s, email.eventsQueue)]);
    expect(source(logicalId(s, email.send.fn))).toEqual([logicalId(s, email.outQueue)]);
  });

  it('lets only the event dispatcher queue outgoing mail', () => {
    const queue = logicalId(s, email.outQueue);
    const senders = ofType(s, 'AWS::IAM::Policy').filter(([, p]) =>
      p.Properties.PolicyDocument.Statement.some(
        (st: any) =>
          [st.Action].flat().includes('sqs:SendMessage') &&
          [st.Resource].flat().some((r: unknown) => refId(r) === queue),
      ),
    );
    expect(senders.map(([, p]) => refId(p.Properties.Roles[0]))).toEqual([
      logicalId(s, s.stack.functions.get('events/dispatch')!.role),
    ]);
  });

  it('activates the receipt rule set at deploy through a custom resource that releases it on delete only if still active', () => {
    const setId = logicalId(s, email.ruleSet);
    const [[, active]] = ofType(s, 'Custom::SesActiveReceiptRuleSet') as [[string, any]];
    expect(refId(active.Properties.RuleSetName)).toBe(setId);
    // After the set (and its rule) exist; so deleted before it (SES refuses to delete the active set).
    expect(active.DependsOn).toEqual(expect.arrayContaining([setId]));
    // The service token is the provider framework's function, which relays to the activation function.
    const framework = s.resources[refId(active.Properties.ServiceToken)!]!;
    expect(framework.Type).toBe('AWS::Lambda::Function');
    const activationId = logicalId(s, email.node.findChild('Activation'));
    expect(refId(framework.Properties.Environment.Variables.USER_ON_EVENT_FUNCTION_ARN)).toBe(activationId);
    const fn = s.resources[activationId]!.Properties;
    expect(fn.Runtime).toBe('nodejs24.x');
    const code = fn.Code.ZipFile as string;
    expect(code).toContain('new SetActiveReceiptRuleSetCommand({ RuleSetName: name })');
    // Delete: read the active set first, deactivate only when it is this one.
    expect(code).toMatch(
      /RequestType === 'Delete'[\s\S]*DescribeActiveReceiptRuleSetCommand[\s\S]*Metadata\.Name === name\) await ses\.send\(new SetActiveReceiptRuleSetCommand\(\{\}\)\)/,
    );
    // Its role may do exactly those two SES calls (besides its logs and traces).
    const policies = ofType(s, 'AWS::IAM::Policy').filter(([, p]) => refId(p.Properties.Roles[0]) === refId(fn.Role));
    const ses = policies
      .flatMap(([, p]) => p.Properties.PolicyDocument.Statement)
      .flatMap((st: any) => [st.Action].flat())
      .filter((a: string) => a.startsWith('ses:'));
    expect(ses.sort()).toEqual(['ses:DescribeActiveReceiptRuleSet', 'ses:SetActiveReceiptRuleSet']);
  });

  it('leaves activation out with emailActivateRuleSet=false, and refuses another value', () => {
    const off = synth({ emailDomain: 'mail.example.com', emailActivateRuleSet: 'false' });
    expect(ofType(off, 'AWS::SES::ReceiptRuleSet')).toHaveLength(1);
    expect(ofType(off, 'Custom::SesActiveReceiptRuleSet')).toHaveLength(0);
    expect(off.stack.email.activation).toBeUndefined();
    expect(s.stack.email.activation).toBeDefined();
    expect(() => readConfig(new App({ context: { emailActivateRuleSet: 'maybe' } }).node)).toThrow(
      /emailActivateRuleSet must be true or false/,
    );
  });
});
