// The custom resource that makes the stack's SES receipt rule set the active one (SES has one
// active set per account and region). Deployed as inline code on the Lambda runtime, whose own
// AWS SDK has the SES v1 client (receipt rules are not in SES v2). The provider framework answers
// CloudFormation; this handler only acts.
const {
  DescribeActiveReceiptRuleSetCommand,
  SESClient,
  SetActiveReceiptRuleSetCommand,
} = require('@aws-sdk/client-ses');

const ses = new SESClient({});

exports.handler = async (event) => {
  const name = event.ResourceProperties.RuleSetName;
  if (event.RequestType === 'Delete') {
    // Deactivated only while it is still ours: a set someone activated since is left alone.
    const active = await ses.send(new DescribeActiveReceiptRuleSetCommand({}));
    if (active.Metadata && active.Metadata.Name === name) await ses.send(new SetActiveReceiptRuleSetCommand({}));
    console.log(
      JSON.stringify({
        message: 'receipt rule set released',
        ruleSet: name,
        wasActive: active.Metadata ? active.Metadata.Name : null,
      }),
    );
  } else {
    await ses.send(new SetActiveReceiptRuleSetCommand({ RuleSetName: name }));
    console.log(JSON.stringify({ message: 'receipt rule set activated', ruleSet: name }));
  }
  // One physical id per set: a renamed set is a replacement, whose Delete releases the old name.
  return { PhysicalResourceId: `active-receipt-rule-set:${name}` };
};
