import { describe, expect, it } from 'vitest';
import { isCdn, logicalId, ofType, refId, synth } from './synth.ts';

// The CDN of infra/cdn.ts: a private, encrypted, TLS-only bucket that only CloudFront reads
// (origin access control), widget.js copied in by a BucketDeployment, the dashboard beside it at `/`
// (its own checks are in dashboard.test.ts).

describe('CDN: widget.js from a private bucket behind CloudFront', () => {
  const s = synth();
  const bucketId = logicalId(s, s.stack.cdn.bucket);
  const distributionId = logicalId(s, s.stack.cdn.distribution);
  const bucket = s.resources[bucketId]!.Properties;
  const distribution = s.resources[distributionId]!.Properties.DistributionConfig;

  it('keeps the bucket private, encrypted and owned by the account', () => {
    expect(bucket.PublicAccessBlockConfiguration).toEqual({
      BlockPublicAcls: true,
      BlockPublicPolicy: true,
      IgnorePublicAcls: true,
      RestrictPublicBuckets: true,
    });
    expect(
      bucket.BucketEncryption.ServerSideEncryptionConfiguration[0].ServerSideEncryptionByDefault.SSEAlgorithm,
    ).toBe('AES256');
    expect(bucket.OwnershipControls.Rules).toEqual([{ ObjectOwnership: 'BucketOwnerEnforced' }]);
    expect(bucket.WebsiteConfiguration).toBeUndefined();
  });

  it('lets only this distribution read, over TLS, through origin access control (no identity, no public grant)', () => {
    const policies = ofType(s, 'AWS::S3::BucketPolicy').filter(([, p]) => refId(p.Properties.Bucket) === bucketId);
    expect(policies).toHaveLength(1);
    const statements = policies[0]![1].Properties.PolicyDocument.Statement as any[];
    const tls = statements.find((st) => st.Effect === 'Deny');
    expect(tls.Condition).toEqual({ Bool: { 'aws:SecureTransport': 'false' } });
    const allows = statements.filter((st) => st.Effect === 'Allow');
    expect(allows).toHaveLength(1);
    expect(allows[0].Principal).toEqual({ Service: 'cloudfront.amazonaws.com' });
    expect(allows[0].Action).toBe('s3:GetObject');
    expect(JSON.stringify(allows[0].Condition.StringEquals['AWS:SourceArn'])).toContain(distributionId);
    expect(JSON.stringify(allows)).not.toMatch(/"Principal":"\*"|"AWS":"\*"/);

    const oacs = ofType(s, 'AWS::CloudFront::OriginAccessControl');
    expect(oacs).toHaveLength(1);
    expect(oacs[0]![1].Properties.OriginAccessControlConfig).toMatchObject({
      OriginAccessControlOriginType: 's3',
      SigningBehavior: 'always',
      SigningProtocol: 'sigv4',
    });
    expect(ofType(s, 'AWS::CloudFront::CloudFrontOriginAccessIdentity')).toEqual([]);
    const [origin] = distribution.Origins;
    expect(refId(origin.OriginAccessControlId)).toBe(oacs[0]![0]);
    expect(JSON.stringify(origin.DomainName)).toContain(bucketId);
    expect(origin.S3OriginConfig).toEqual({ OriginAccessIdentity: '' });
  });

  it('serves widget.js over HTTPS only, read-only methods, compressed, with CORS and security headers', () => {
    const behaviors = distribution.CacheBehaviors as any[];
    expect(behaviors.map((x) => x.PathPattern)).toEqual(['/widget.js']);
    const b = behaviors[0];
    expect(b.TargetOriginId).toBe(distribution.DefaultCacheBehavior.TargetOriginId);
    expect(b.ViewerProtocolPolicy).toBe('redirect-to-https');
    expect(b.AllowedMethods).toEqual(['GET', 'HEAD', 'OPTIONS']);
    expect(b.Compress).toBe(true);
    // AWS's managed response headers policy "CORS-and-SecurityHeadersPolicy" (any origin).
    expect(b.ResponseHeadersPolicyId).toBe('e61eb60c-9c35-4d20-a928-2b84e02af89c');
    expect(distribution.Enabled).toBe(true);
  });

  it('copies the built widget into the bucket with a short cache lifetime and invalidates it', () => {
    // Two deployments into the bucket (widget.js, and the dashboard's build), by one function.
    const deployments = ofType(s, 'Custom::CDKBucketDeployment');
    expect(deployments).toHaveLength(2);
    expect(new Set(deployments.map(([, r]) => JSON.stringify(r.Properties.ServiceToken))).size).toBe(1);
    expect(ofType(s, 'AWS::Lambda::Function').filter(([id]) => isCdn(id))).toHaveLength(1);
    const d = deployments.find(([id]) => id.startsWith('CdnWidget'))![1].Properties;
    expect(refId(d.DestinationBucketName)).toBe(bucketId);
    expect(d.Prune).toBe(false);
    expect(d.SystemMetadata).toMatchObject({
      'cache-control': 'public, max-age=300',
      'content-type': 'text/javascript; charset=utf-8',
    });
    expect(refId(d.DistributionId)).toBe(distributionId);
    expect(d.DistributionPaths).toEqual(['/widget.js']);
    expect(s.template.toJSON().Outputs.WidgetUrl).toBeDefined();
  });

  it('gives the deployment role exactly the copy, its log group and the invalidation', () => {
    const roles = ofType(s, 'AWS::IAM::Role').filter(([id]) => isCdn(id));
    expect(roles).toHaveLength(1);
    const [roleId, role] = roles[0]!;
    expect(role.Properties.ManagedPolicyArns).toBeUndefined();
    const policies = ofType(s, 'AWS::IAM::Policy').filter(([, p]) =>
      p.Properties.Roles.some((r: unknown) => refId(r) === roleId),
    );
    expect(policies).toHaveLength(1);
    const where = (resource: unknown) => {
      const text = JSON.stringify(resource);
      if (resource === '*') return '*';
      if (text.includes(bucketId)) return 'files-bucket';
      if (text.includes('cdk-hnb659fds-assets')) return 'assets-bucket';
      if (text.includes('CdnDeployLogs')) return 'own-log-group';
      return `UNEXPECTED ${text}`;
    };
    const pairs = new Set<string>();
    for (const st of policies[0]![1].Properties.PolicyDocument.Statement) {
      expect(st.Effect).toBe('Allow');
      for (const a of [st.Action].flat())
        for (const r of [st.Resource].flat())
          pairs.add(`${where(r)} ${a.split(':')[0]}:${a === '*' ? '*' : a.split(':')[1]}`);
    }
    const byResource = (r: string) =>
      [...pairs]
        .filter((p) => p.startsWith(`${r} `))
        .map((p) => p.slice(r.length + 1))
        .sort();
    expect(byResource('*')).toEqual(['cloudfront:CreateInvalidation', 'cloudfront:GetInvalidation']);
    expect(byResource('own-log-group')).toEqual(['logs:CreateLogStream', 'logs:PutLogEvents']);
    expect(byResource('assets-bucket').every((a) => /^s3:(Get|List)/.test(a))).toBe(true);
    expect(byResource('files-bucket').every((a) => a.startsWith('s3:'))).toBe(true);
    expect([...pairs].filter((p) => p.startsWith('UNEXPECTED'))).toEqual([]);
  });
});
