import { App, Tags } from 'aws-cdk-lib';
import { readConfig } from '../infra/config.ts';
import { addNagChecks } from '../infra/nag.ts';
import { SupportStack } from '../infra/stack.ts';

// Environment-agnostic on purpose: no account/region lookups, so `cdk synth` works offline;
// `cdk deploy` takes the account and region from the caller's credentials.
const app = new App();
const stack = new SupportStack(app, 'SupportAssistant', {
  description:
    'Multi-tenant customer-support assistant: HTTP API and live WebSocket API, one function per route, one DynamoDB table and its event stream',
  config: readConfig(app.node),
});
Tags.of(stack).add('app', 'support-assistant');

// cdk-nag checks the construct tree, which takes milliseconds; `-c nag=false` skips it.
if (app.node.tryGetContext('nag') !== 'false' && app.node.tryGetContext('nag') !== false) addNagChecks(app);
