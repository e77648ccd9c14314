import { Aws, Duration, RemovalPolicy, Validations } from 'aws-cdk-lib';
import { HttpJwtAuthorizer } from 'aws-cdk-lib/aws-apigatewayv2-authorizers';
import { AccountRecovery, FeaturePlan, Mfa, OAuthScope, UserPool, type UserPoolClient } from 'aws-cdk-lib/aws-cognito';
import { Construct } from 'constructs';
import type { StackConfig } from './config.ts';

/**
 * Who may call the admin API: a Cognito user pool the stack creates (default), or an external
 * OIDC issuer given by context. Either way API Gateway's JWT authorizer verifies the token.
 */
export class Auth extends Construct {
  readonly authorizer: HttpJwtAuthorizer;
  readonly issuerUrl: string;
  readonly audience: string[];
  readonly userPool?: UserPool;
  readonly client?: UserPoolClient;

  constructor(scope: Construct, id: string, config: Pick<StackConfig, 'oidc' | 'callbackUrls'>) {
    super(scope, id);
    if (config.oidc) {
      this.issuerUrl = config.oidc.issuerUrl;
      this.audience = config.oidc.audience;
    } else {
      const pool = new UserPool(this, 'UserPool', {
        // Anyone may sign up and onboard a tenant (POST /auth/onboard); invited members sign up too.
        selfSignUpEnabled: true,
        signInAliases: { email: true },
        autoVerify: { email: true },
        standardAttributes: { email: { required: true, mutable: true } },
        passwordPolicy: {
          minLength: 12,
          requireLowercase: true,
          requireUppercase: true,
          requireDigits: true,
          requireSymbols: true,
        },
        // Dashboard users read conversations of their customers and manage integration
        // credentials: a second factor is required. TOTP only, so no SMS role or spend.
        mfa: Mfa.REQUIRED,
        mfaSecondFactor: { otp: true, sms: false },
        accountRecovery: AccountRecovery.EMAIL_ONLY,
        featurePlan: FeaturePlan.ESSENTIALS,
        deletionProtection: true,
        removalPolicy: RemovalPolicy.RETAIN,
      });
      Validations.of(pool).acknowledge({
        id: 'AwsSolutions-COG8',
        reason:
          'The Plus feature plan (threat protection) is billed per monthly active user; Essentials with required TOTP MFA and a 12-character password policy is the chosen baseline. Switch featurePlan to PLUS to enable it.',
      });
      const client = pool.addClient('Dashboard', {
        // A browser app cannot keep a secret.
        generateSecret: false,
        authFlows: { userSrp: true },
        preventUserExistenceErrors: true,
        enableTokenRevocation: true,
        accessTokenValidity: Duration.hours(1),
        idTokenValidity: Duration.hours(1),
        refreshTokenValidity: Duration.days(30),
        ...(config.callbackUrls.length > 0
          ? {
              oAuth: {
                flows: { authorizationCodeGrant: true },
                scopes: [OAuthScope.OPENID, OAuthScope.EMAIL, OAuthScope.PROFILE],
                callbackUrls: config.callbackUrls,
                logoutUrls: config.callbackUrls,
              },
            }
          : // Without callback URLs there is no hosted-UI flow to offer; SRP sign-in only.
            { disableOAuth: true }),
      });
      this.userPool = pool;
      this.client = client;
      this.issuerUrl = `https://cognito-idp.${Aws.REGION}.${Aws.URL_SUFFIX}/${pool.userPoolId}`;
      // Cognito access tokens carry `client_id`, not `aud`; API Gateway accepts either against this list.
      this.audience = [client.userPoolClientId];
    }
    // The authorizer keeps this array, so allowClient() may still add to it until synth.
    this.authorizer = new HttpJwtAuthorizer('Jwt', this.issuerUrl, {
      authorizerName: 'jwt',
      jwtAudience: this.audience,
      identitySource: ['$request.header.Authorization'],
    });
  }

  /** Lets the access tokens of another app client of the pool through the authorizer. */
  allowClient(client: UserPoolClient): void {
    this.audience.push(client.userPoolClientId);
  }
}
