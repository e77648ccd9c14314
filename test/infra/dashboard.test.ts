import { describe, expect, it } from 'vitest';
import { isCdn, logicalId, ofType, refId, synth } from './synth.ts';

// The dashboard's hosting (infra/dashboard.ts): at `/` of the stack's CDN (infra/cdn.ts, a private
// bucket behind CloudFront with origin access control, shared with widget.js), a Cognito managed
// login and app client for the code flow with PKCE, and a config.json written at deploy time.

describe('dashboard hosting', () => {
  const s = synth();
  const d = s.stack.dashboard;
  const bucketId = logicalId(s, d.bucket);
  const cdnId = logicalId(s, d.distribution);
  const cdnUrl = { 'Fn::Join': ['', ['https://', { 'Fn::GetAtt': [cdnId, 'DomainName'] }]] };

  it('keeps the bucket private, encrypted and TLS-only', () => {
    const bucket = s.resources[bucketId]!.Properties;
    expect(bucket.PublicAccessBlockConfiguration).toEqual({
      BlockPublicAcls: true,
      BlockPublicPolicy: true,
      IgnorePublicAcls: true,
      RestrictPublicBuckets: true,
    });
    expect(
      bucket.BucketEncryption.ServerSideEncryptionConfiguration[0].ServerSideEncryptionByDefault.SSEAlgorithm,
    ).toBe('AES256');
    expect(bucket.WebsiteConfiguration).toBeUndefined();
    const policy = ofType(s, 'AWS::S3::BucketPolicy').find(([, p]) => refId(p.Properties.Bucket) === bucketId)![1]
      .Properties.PolicyDocument;
    const statements = policy.Statement as any[];
    expect(statements.find((st) => st.Effect === 'Deny')).toMatchObject({
      Condition: { Bool: { 'aws:SecureTransport': 'false' } },
    });
    // Only CloudFront, and only for this distribution, may read.
    const reads = statements.filter((st) => st.Effect === 'Allow');
    expect(reads).toHaveLength(1);
    expect(reads[0].Principal).toEqual({ Service: 'cloudfront.amazonaws.com' });
    expect(reads[0].Action).toBe('s3:GetObject');
    expect(JSON.stringify(reads[0].Condition)).toContain(cdnId);
  });

  it('serves it through CloudFront with origin access control, HTTPS and the app for client-side routes', () => {
    const cdn = s.resources[cdnId]!.Properties.DistributionConfig;
    const [oacId] = ofType(s, 'AWS::CloudFront::OriginAccessControl')[0]!;
    expect(cdn.Origins).toHaveLength(1);
    expect(refId(cdn.Origins[0].OriginAccessControlId)).toBe(oacId);
    expect(cdn.Origins[0].S3OriginConfig.OriginAccessIdentity).toBe('');
    expect(cdn.DefaultRootObject).toBe('index.html');
    expect(cdn.DefaultCacheBehavior.ViewerProtocolPolicy).toBe('redirect-to-https');
    expect(cdn.DefaultCacheBehavior.AllowedMethods).toEqual(['GET', 'HEAD']);
    expect(cdn.CustomErrorResponses).toEqual(
      [403, 404].map((code) =>
        expect.objectContaining({ ErrorCode: code, ResponseCode: 200, ResponsePagePath: '/index.html' }),
      ),
    );
    const headers = ofType(s, 'AWS::CloudFront::ResponseHeadersPolicy')[0]![1].Properties.ResponseHeadersPolicyConfig
      .SecurityHeadersConfig;
    expect(headers.ContentSecurityPolicy.ContentSecurityPolicy).toContain("frame-ancestors 'none'");
    expect(headers.FrameOptions.FrameOption).toBe('DENY');
  });

  it('adds a managed login domain and a public app client for the code flow, calling back to the CDN', () => {
    const domains = ofType(s, 'AWS::Cognito::UserPoolDomain');
    expect(domains).toHaveLength(1);
    expect(domains[0]![1].Properties.ManagedLoginVersion).toBe(2);
    const client = s.resources[logicalId(s, d.client!)]!.Properties;
    expect(client).toMatchObject({
      GenerateSecret: false,
      AllowedOAuthFlowsUserPoolClient: true,
      AllowedOAuthFlows: ['code'],
      AllowedOAuthScopes: expect.arrayContaining(['openid', 'email']),
      SupportedIdentityProviders: ['COGNITO'],
      EnableTokenRevocation: true,
    });
    expect(client.CallbackURLs).toEqual([
      { 'Fn::Join': ['', ['https://', { 'Fn::GetAtt': [cdnId, 'DomainName'] }, '/callback']] },
    ]);
    expect(client.LogoutURLs).toEqual([
      { 'Fn::Join': ['', ['https://', { 'Fn::GetAtt': [cdnId, 'DomainName'] }, '/']] },
    ]);
    expect(ofType(s, 'AWS::Cognito::ManagedLoginBranding')[0]![1].Properties).toMatchObject({
      UseCognitoProvidedValues: true,
    });
    // Its tokens pass the API's authorizer.
    const jwt = ofType(s, 'AWS::ApiGatewayV2::Authorizer')[0]![1].Properties.JwtConfiguration;
    expect(jwt.Audience.map(refId)).toContain(logicalId(s, d.client!));
  });

  it('uploads the build and writes config.json with the issuer, client, API and sign-out URL at deploy time', () => {
    const [, deployment] = ofType(s, 'Custom::CDKBucketDeployment').find(([id]) => id.startsWith('DashboardDeploy'))!;
    expect(refId(deployment.Properties.DestinationBucketName)).toBe(bucketId);
    expect(deployment.Properties.DistributionPaths).toEqual(['/index.html', '/config.json']);
    // Pruning earlier builds leaves widget.js, which shares the bucket.
    expect(deployment.Properties.Prune).toBe(true);
    expect(deployment.Properties.Exclude).toEqual(['widget.js']);
    // Two sources: the built app and the config document; the second carries the tokens resolved at deploy time.
    expect(deployment.Properties.SourceObjectKeys).toHaveLength(2);
    const config = s.stack.resolve(d.runtimeConfig);
    expect(Object.keys(config).sort()).toEqual([
      'apiUrl',
      'clientId',
      'issuer',
      'liveUrl',
      'logoutUrl',
      'scope',
      'widgetOrigin',
    ]);
    expect(refId(config.clientId)).toBe(logicalId(s, d.client!));
    expect(JSON.stringify(config.issuer)).toContain(logicalId(s, s.stack.auth.userPool!));
    expect(JSON.stringify(config.apiUrl)).toContain(logicalId(s, s.stack.api.httpApi));
    // widget.js is served by the same distribution (infra/cdn.ts).
    expect(config.widgetOrigin).toEqual(cdnUrl);
    expect(s.stack.cdn.distribution).toBe(d.distribution);
    const logout = JSON.stringify(config.logoutUrl);
    expect(logout).toContain('/logout?client_id=');
    expect(logout).toContain(logicalId(s, s.stack.dashboard.loginDomain!));
    expect(logout).toContain('&logout_uri=https://');
    // The tokens of config.json are the deployment's markers, resolved by CloudFormation.
    expect(JSON.stringify(deployment.Properties.SourceMarkers)).toContain(logicalId(s, d.client!));
  });

  it('limits the deployment handler to the asset bucket, this bucket and invalidations', () => {
    const policies = ofType(s, 'AWS::IAM::Policy').filter(([id]) => isCdn(id));
    expect(policies).toHaveLength(1);
    const statements = policies[0]![1].Properties.PolicyDocument.Statement as any[];
    const resources = JSON.stringify(statements.flatMap((st) => st.Resource));
    expect(resources).toContain(bucketId);
    expect(resources).toContain('cdk-hnb659fds-assets');
    const star = statements.filter((st) => st.Resource === '*').flatMap((st) => [st.Action].flat());
    expect(star.sort()).toEqual(['cloudfront:CreateInvalidation', 'cloudfront:GetInvalidation']);
    expect(JSON.stringify(statements)).not.toMatch(/dynamodb|kms:/);
  });

  it('with an external issuer: no Cognito domain, and the first audience as the client id', () => {
    const ext = synth({ issuerUrl: 'https://login.example.com/realms/support', audience: 'dashboard,cli' });
    expect(ofType(ext, 'AWS::Cognito::UserPoolDomain')).toHaveLength(0);
    const config = ext.stack.resolve(ext.stack.dashboard.runtimeConfig);
    expect(config).toMatchObject({ issuer: 'https://login.example.com/realms/support', clientId: 'dashboard' });
    expect(config.logoutUrl).toBeUndefined();
  });
});
