import { App, CfnResource, Stack, Validations } from 'aws-cdk-lib';
import { HttpRoute, WebSocketRoute } from 'aws-cdk-lib/aws-apigatewayv2';
import { AttributeType, Table } from 'aws-cdk-lib/aws-dynamodb';
import type { NagPack } from 'cdk-nag';
import { describe, expect, it } from 'vitest';
import { readConfig } from '#infra/config.ts';
import { addNagChecks, nagPacks } from '#infra/nag.ts';
import { SupportStack } from '#infra/stack.ts';
import { routes as routeTable } from '#shared/edge/routes/index.ts';
import { liveRoutes } from '#shared/edge/triggers.ts';
import { STUB_ENTRY, synth } from './synth.ts';

// cdk-nag 3 runs as a CDK policy-validation plugin; acknowledgements are
// `Validations.of(construct).acknowledge({ id, reason })` metadata next to the resources.

const EVERY_OPTION = {
  issuerUrl: 'https://login.example.com/realms/support',
  audience: 'support-dashboard',
  domainName: 'api.example.com',
  certificateArn: 'arn:aws:acm:eu-west-1:123456789012:certificate/11111111-2222-3333-4444-555555555555',
  alarmTopicArn: 'arn:aws:sns:eu-west-1:123456789012:alarms',
};

const findings = (scope: Stack, ignoreAcknowledgements = false) =>
  nagPacks().flatMap((pack: NagPack) => {
    // Test-only: switch the pack's (private) acknowledgement lookup off to see what it would report.
    if (ignoreAcknowledgements) Object.assign(pack, { isAcknowledged: () => false });
    return pack.validateScope(scope).violations.map((v) => ({
      rule: v.ruleName,
      severity: v.severity,
      where: v.violatingResources.map((r) => r.constructPath),
    }));
  });

/** Every acknowledgement in the tree: construct path, rule id, reason. */
function acknowledgements(stack: Stack) {
  const out: { path: string; id: string; reason: string }[] = [];
  for (const c of stack.node.findAll()) {
    for (const m of c.node.metadata) {
      if (m.type !== Validations.ACKNOWLEDGED_RULES_METADATA_KEY) continue;
      for (const [id, reason] of Object.entries(m.data as Record<string, string>)) {
        out.push({ path: c.node.path, id: id.replace(/^annotation::/i, ''), reason });
      }
    }
  }
  return out;
}

describe('cdk-nag: AwsSolutionsChecks and ServerlessChecks', () => {
  it('uses both packs', () => {
    expect(
      nagPacks()
        .map((p) => p.readPackName)
        .sort(),
    ).toEqual(['AwsSolutions', 'Serverless']);
  });

  it.each([
    ['default (Cognito, no domain)', {}],
    ['every option (OIDC issuer, domain, alarm topic)', EVERY_OPTION],
  ])(
    'reports no unacknowledged error or warning, in the parent stack and in every nested stack: %s',
    (_name, context) => {
      const s = synth(context);
      expect(findings(s.stack)).toEqual([]);
      // The packs walk the construct tree from where they start: each nested stack on its own, and
      // the parent's walk reaches a resource in each of them.
      expect(s.templates.length).toBe(1 + s.stack.nestedStacks.size);
      for (const { stack } of s.templates) expect(findings(stack), stack.node.path).toEqual([]);
      const walked = new Set(
        s.stack.node
          .findAll()
          .filter(CfnResource.isCfnResource)
          .map((r) => Stack.of(r)),
      );
      expect([...walked].map((st) => st.node.path).sort()).toEqual(s.templates.map((t) => t.stack.node.path).sort());
    },
  );

  it('acknowledges only what the packs would otherwise report, each with a specific reason', () => {
    const { stack } = synth();
    const acks = acknowledgements(stack);
    const wouldReport = new Set(findings(stack, true).map((f) => f.rule));
    const ids = new Set(acks.map((a) => a.id));
    expect([...ids].sort()).toEqual(
      [
        'AwsSolutions-APIG4',
        // The CDN (infra/cdn.ts): public static files (dashboard and widget.js), and CDK's own BucketDeployment function and grants.
        'AwsSolutions-CFR1',
        'AwsSolutions-CFR2',
        'AwsSolutions-CFR3',
        'AwsSolutions-CFR4',
        'AwsSolutions-COG8',
        stack.live.managementFinding(),
        'AwsSolutions-IAM5[Action::s3:Abort*]',
        'AwsSolutions-IAM5[Action::s3:DeleteObject*]',
        'AwsSolutions-IAM5[Action::s3:GetBucket*]',
        'AwsSolutions-IAM5[Action::s3:GetObject*]',
        'AwsSolutions-IAM5[Action::s3:List*]',
        'AwsSolutions-IAM5[Resource::*]',
        'AwsSolutions-IAM5[Resource::<CdnFiles23D3EB2C.Arn>/*]',
        'AwsSolutions-IAM5[Resource::arn:<AWS::Partition>:s3:::cdk-hnb659fds-assets-<AWS::AccountId>-<AWS::Region>/*]',
        // The email channel (infra/email.ts): object keys made per message, the tenants' SES identities, SES's topic.
        ...emailFindings(stack),
        'AwsSolutions-IAM5[Resource::arn:<AWS::Partition>:ses:<AWS::Region>:<AWS::AccountId>:identity/*]',
        // The receipt rule set's activation (infra/email.ts): aws-cdk-lib's provider framework invoking its function.
        stack.email.activationFinding!,
        'Serverless-LambdaDefaultMemorySize',
        'AwsSolutions-L1',
        'AwsSolutions-S1',
        'AwsSolutions-SMG4',
        'AwsSolutions-SQS3',
        // The scheduled jobs' rules (infra/stack.ts): a failed run is retried, alarms, and the next run redoes it.
        'Serverless-EventBusDLQ',
        'Serverless-LambdaDLQ',
        'Serverless-LambdaEventSourceMappingDestination',
        'Serverless-LambdaLatestVersion',
        'Serverless-LambdaTracing',
        'Serverless-SQSRedrivePolicy',
      ].sort(),
    );
    for (const id of ids) expect(wouldReport.has(id), `${id} is acknowledged but never reported`).toBe(true);
    for (const a of acks) expect(a.reason.length, `${a.path} ${a.id}`).toBeGreaterThan(60);
  });

  it("acknowledges the missing authorizer only on the widget and public routes and the live channel's", () => {
    const { stack } = synth();
    const apig4 = acknowledgements(stack)
      .filter((a) => a.id === 'AwsSolutions-APIG4')
      .map((a) => a.path);
    const routes = stack.node.findAll().filter((c) => c instanceof HttpRoute || c instanceof WebSocketRoute);
    const open = routes
      .filter((r) => (r.node.defaultChild as any)?.authorizationType === 'NONE')
      .map((r) => r.node.path);
    expect(open.length).toBe(routeTable.filter((r) => r.auth !== 'jwt').length + liveRoutes.length);
    expect(open.length).toBeGreaterThan(0);
    expect(apig4.sort()).toEqual(open.sort());
  });

  it('fails a real synth of the app on a finding, in the parent or a nested stack, and passes it for the stack', () => {
    const build = (badTableIn?: 'parent' | 'nested') => {
      const app = new App({ context: { 'aws:cdk:bundling-stacks': [] } });
      const stack = new SupportStack(app, 'SupportAssistant', {
        config: readConfig(app.node),
        entryOf: () => STUB_ENTRY,
      });
      // Control: a table without point-in-time recovery, which AwsSolutions-DDB3 rejects.
      const where = badTableIn === 'nested' ? stack.nestedStacks.get('Chat')! : stack;
      if (badTableIn) new Table(where, 'Careless', { partitionKey: { name: 'id', type: AttributeType.STRING } });
      addNagChecks(app);
      return () => app.synth();
    };
    expect(build()).not.toThrow();
    expect(build('parent')).toThrow(/AwsSolutions-DDB3/);
    expect(build('nested')).toThrow(/AwsSolutions-DDB3/);
  });
});

/** The mail bucket's prefix grants, as cdk-nag names them from the receive function's, the conversation route's and the export route's stacks. */
function emailFindings(stack: SupportStack): string[] {
  const route = stack.functions.get('admin/get-conversation')!;
  return [
    ...new Set([
      stack.mail.objectsFinding(stack.email.receive, 'inbound/*'),
      stack.mail.objectsFinding(stack.email.receive, 'tenants/*'),
      stack.mail.objectsFinding(route, 'inbound/*'),
      stack.mail.objectsFinding(route, 'tenants/*'),
      // The export function writes `exports/<tenant>/<id>.jsonl`; the export's status route links it.
      stack.mail.objectsFinding(stack.exports.fn, 'exports/*'),
      stack.mail.objectsFinding(stack.functions.get('admin/get-tenant-export')!, 'exports/*'),
      // A customer's erasure deletes their stored originals and attachments.
      stack.mail.objectsFinding(stack.functions.get('admin/erase-customer')!, 'inbound/*'),
      stack.mail.objectsFinding(stack.functions.get('admin/erase-customer')!, 'tenants/*'),
    ]),
  ];
}
