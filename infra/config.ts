import type { Node } from 'constructs';

/** Everything a deployment may vary, read from CDK context (`-c name=value` or cdk.json). */
export interface StackConfig {
  /** An external OIDC issuer; when absent the stack creates a Cognito user pool. */
  oidc?: { issuerUrl: string; audience: string[] };
  customDomain?: { domainName: string; certificateArn: string };
  throttle: { rateLimit: number; burstLimit: number };
  logRetentionDays: number;
  /** SNS topic that every alarm notifies; alarms exist either way. */
  alarmTopicArn?: string;
  /** Cognito hosted-UI callback URLs; none means the app client speaks SRP only (no OAuth flows). */
  callbackUrls: string[];
  /** Base URL of the dashboard, where Slack messages link to conversations; default the stack's own (DashboardUrl). */
  dashboardUrl?: string;
  /** The tenants' inbound email domain (`<slug>@<domain>`), verified in SES; absent, the receipt rule takes every verified domain. */
  emailDomain?: string;
  /** Make the stack's SES receipt rule set the region's active one (false: an account that manages its active set elsewhere). */
  emailActivateRuleSet: boolean;
}

export const DEFAULTS = {
  // Stage-wide limits, per second; the per-conversation limit lives in the functions.
  throttle: { rateLimit: 100, burstLimit: 200 },
  logRetentionDays: 30,
} as const;

const list = (value: unknown): string[] =>
  (Array.isArray(value) ? value.map(String) : typeof value === 'string' ? value.split(',') : [])
    .map((s) => s.trim())
    .filter(Boolean);

const str = (node: Node, key: string): string | undefined => {
  const v: unknown = node.tryGetContext(key);
  return v === undefined || v === null || v === '' ? undefined : String(v);
};

const positiveInt = (node: Node, key: string, fallback: number): number => {
  const raw = str(node, key);
  if (raw === undefined) return fallback;
  const n = Number(raw);
  if (!Number.isInteger(n) || n <= 0) throw new Error(`context ${key} must be a positive integer, got ${raw}`);
  return n;
};

export function readConfig(node: Node): StackConfig {
  const issuerUrl = str(node, 'issuerUrl');
  const audience = list(node.tryGetContext('audience'));
  if ((issuerUrl === undefined) !== (audience.length === 0)) {
    throw new Error(
      'context issuerUrl and audience go together: give both (external OIDC issuer) or neither (Cognito)',
    );
  }
  // API Gateway fetches the discovery document from the issuer over https only.
  if (issuerUrl !== undefined && !issuerUrl.startsWith('https://')) {
    throw new Error(`context issuerUrl must be an https URL, got ${issuerUrl}`);
  }

  const domainName = str(node, 'domainName');
  const certificateArn = str(node, 'certificateArn');
  if ((domainName === undefined) !== (certificateArn === undefined)) {
    throw new Error('context domainName and certificateArn go together');
  }

  // Once a list of allowed origins; the API now allows every origin and each tenant's
  // widget.allowedOrigins narrows its chat routes. Refused rather than silently ignored.
  if (str(node, 'corsOrigins') !== undefined) {
    throw new Error(
      "context corsOrigins is no longer used: the API answers every origin; narrow a tenant's widget with its widget.allowedOrigins setting",
    );
  }

  const alarmTopicArn = str(node, 'alarmTopicArn');
  const dashboardUrl = str(node, 'dashboardUrl');
  const emailDomain = str(node, 'emailDomain')?.toLowerCase();
  if (emailDomain !== undefined && !/^[a-z0-9-]+(\.[a-z0-9-]+)+$/.test(emailDomain)) {
    throw new Error(`context emailDomain must be a domain name such as mail.example.com, got ${emailDomain}`);
  }
  const activate = str(node, 'emailActivateRuleSet') ?? 'true';
  if (activate !== 'true' && activate !== 'false')
    throw new Error(`context emailActivateRuleSet must be true or false, got ${activate}`);
  if (dashboardUrl !== undefined && !/^https:\/\/[^\s]+$/.test(dashboardUrl)) {
    throw new Error(`context dashboardUrl must be an https URL, got ${dashboardUrl}`);
  }
  return {
    ...(issuerUrl !== undefined ? { oidc: { issuerUrl, audience } } : {}),
    ...(domainName && certificateArn ? { customDomain: { domainName, certificateArn } } : {}),
    throttle: {
      rateLimit: positiveInt(node, 'throttleRate', DEFAULTS.throttle.rateLimit),
      burstLimit: positiveInt(node, 'throttleBurst', DEFAULTS.throttle.burstLimit),
    },
    logRetentionDays: positiveInt(node, 'logRetentionDays', DEFAULTS.logRetentionDays),
    ...(alarmTopicArn ? { alarmTopicArn } : {}),
    callbackUrls: list(node.tryGetContext('callbackUrls')),
    ...(dashboardUrl ? { dashboardUrl } : {}),
    ...(emailDomain ? { emailDomain } : {}),
    emailActivateRuleSet: activate === 'true',
  };
}
