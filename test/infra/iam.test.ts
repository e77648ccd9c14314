import { describe, expect, it } from 'vitest';
import { KMS_ACTIONS, tableActions, type ServiceFunction } from '#infra/function.ts';
import { INDEXES } from '#shared/data/table.ts';
import { routes } from '#shared/edge/routes/index.ts';
import { eventDispatcher, liveRoutes } from '#shared/edge/triggers.ts';
import { declared, type Declared, logicalId, ofType, refId, serviceOfType, synth, type Synth } from './synth.ts';

// Least privilege, proven on the template: every (action, resource) pair that a function's
// role allows is listed, resources named symbolically, and compared with what its declaration needs.

const s = synth();
const tableId = logicalId(s, s.stack.data.table);
const keyId = logicalId(s, s.stack.credentialsKey);
const liveApiId = logicalId(s, s.stack.live.webSocketApi);
const deadLettersId = logicalId(s, s.stack.events.deadLetters);
const queueId = logicalId(s, s.stack.deliveries.queue);
const indexQueueId = logicalId(s, s.stack.indexing.queue);
const exportQueueId = logicalId(s, s.stack.exports.queue);
const mailId = logicalId(s, s.stack.mail.bucket);
const emailQueueId = logicalId(s, s.stack.email.outQueue);
const emailEventsQueueId = logicalId(s, s.stack.email.eventsQueue);
const configurationSet = logicalId(s, s.stack.email.configurationSet);
/** What grantSendMessages allows on the delivery queue. */
const SEND_ACTIONS = ['sqs:GetQueueAttributes', 'sqs:GetQueueUrl', 'sqs:SendMessage'];

/** `arn:<partition>:execute-api:<region>:<account>:` then a Ref, then the rest: [apiId, rest]. */
function executeApiArn(join: any[]): [string | undefined, string] | undefined {
  const parts = join[1];
  const prefix = [
    'arn:',
    { Ref: 'AWS::Partition' },
    ':execute-api:',
    { Ref: 'AWS::Region' },
    ':',
    { Ref: 'AWS::AccountId' },
    ':',
  ];
  if (join[0] !== '' || parts.length !== prefix.length + 2) return undefined;
  if (JSON.stringify(parts.slice(0, prefix.length)) !== JSON.stringify(prefix)) return undefined;
  return [refId(parts[prefix.length]), parts[prefix.length + 1]];
}

/**
 * A policy resource as a symbol: `table`, `index:gsi1`, `stream`, `key`, `own-log-group`,
 * `dead-letters`, `live-connections` (this stack's WebSocket API and stage), `*`.
 */
function symbol(resource: unknown, ownLogGroup: string): string {
  if (resource === '*') return '*';
  const id = refId(resource);
  const attr = (resource as any)?.['Fn::GetAtt']?.[1];
  if (id === tableId) return attr === 'StreamArn' ? 'stream' : 'table';
  if (id === keyId) return 'key';
  if (id === deadLettersId) return 'dead-letters';
  if (id === queueId) return 'delivery-queue';
  if (id === indexQueueId) return 'index-queue';
  if (id === exportQueueId) return 'export-queue';
  if (id === emailQueueId) return 'email-queue';
  if (id === emailEventsQueueId) return 'email-events-queue';
  if (id === ownLogGroup) return 'own-log-group';
  const join = (resource as any)?.['Fn::Join'];
  // The mail bucket's objects under a prefix: `mail:<prefix>`.
  if (join && join[0] === '' && join[1].length === 2 && refId(join[1][0]) === mailId)
    return `mail:${String(join[1][1]).slice(1)}`;
  const ses = join && join[0] === '' ? JSON.stringify(join[1]) : '';
  if (ses.includes(':ses:') && ses.endsWith('":identity/*"]')) return 'ses-identities';
  if (ses.includes(':ses:') && ses.includes(':configuration-set/') && ses.includes(configurationSet))
    return 'ses-configuration-set';
  if (join && join[0] === '' && join[1].length === 2 && refId(join[1][0]) === tableId) {
    const m = /^\/index\/(\w+)$/.exec(join[1][1]);
    if (m) return `index:${m[1]}`;
  }
  const api = join && executeApiArn(join);
  if (api && api[0] === liveApiId && api[1] === `/${s.stack.live.stage.stageName}/*/@connections/*`)
    return 'live-connections';
  return `UNEXPECTED ${JSON.stringify(resource)}`;
}

/** Every allowed pair of the role of one function, from all policies attached to that role. */
function allowedPairs(syn: Synth, target: Pick<Declared, 'handler'> | ServiceFunction): string[] {
  const row = 'fn' in target ? { handler: target.node.path } : target;
  const f = 'fn' in target ? target : syn.stack.functions.get(target.handler)!;
  const fnProps = syn.resources[logicalId(syn, f.fn)]!.Properties;
  const roleId = refId(fnProps.Role)!;
  const ownLogGroup = refId(fnProps.LoggingConfig.LogGroup)!;
  const role = syn.resources[roleId]!.Properties;
  // Nothing attached to the role but the inline policy below.
  expect(role.ManagedPolicyArns, row.handler).toBeUndefined();
  expect(role.Policies, row.handler).toBeUndefined();
  expect(role.PermissionsBoundary).toBeUndefined();

  const policies = ofType(syn, 'AWS::IAM::Policy').filter(([, p]) =>
    p.Properties.Roles.some((r: unknown) => refId(r) === roleId),
  );
  expect(policies, row.handler).toHaveLength(1);
  expect(ofType(syn, 'AWS::IAM::ManagedPolicy').filter(([, p]) => JSON.stringify(p).includes(roleId))).toEqual([]);

  const pairs: string[] = [];
  for (const st of policies[0]![1].Properties.PolicyDocument.Statement) {
    expect(st.Effect).toBe('Allow');
    expect(Object.keys(st).sort()).toEqual(['Action', 'Effect', 'Resource']); // no NotAction, NotResource, Condition quirks
    for (const action of [st.Action].flat()) {
      for (const resource of [st.Resource].flat()) pairs.push(`${action} on ${symbol(resource, ownLogGroup)}`);
    }
  }
  return pairs.sort();
}

function expectedPairs(
  row: Pick<Declared, 'table' | 'kms' | 'kind'> & {
    queue?: boolean;
    manageConnections?: boolean;
    mailLinks?: boolean;
    exportLinks?: boolean;
    exportQueue?: boolean;
    eraseObjects?: boolean;
    sesIdentities?: boolean;
  },
): string[] {
  const pairs = [
    'logs:CreateLogStream on own-log-group',
    'logs:PutLogEvents on own-log-group',
    'xray:PutTelemetryRecords on *',
    'xray:PutTraceSegments on *',
  ];
  if (row.table !== 'none') {
    for (const a of tableActions(row.table)) pairs.push(`${a} on table`);
    for (const index of INDEXES) pairs.push(`dynamodb:Query on index:${index}`);
  }
  if (row.kms) for (const a of KMS_ACTIONS) pairs.push(`${a} on key`);
  if (row.kind === 'stream') {
    // Granted by the event source: read the table's stream, and send what fails to the dead letters.
    pairs.push('dynamodb:ListStreams on *');
    for (const a of ['DescribeStream', 'GetRecords', 'GetShardIterator']) pairs.push(`dynamodb:${a} on stream`);
    for (const a of ['SendMessage', 'GetQueueAttributes', 'GetQueueUrl']) pairs.push(`sqs:${a} on dead-letters`);
  }
  if ((row.kind === 'stream' && eventDispatcher.manageConnections) || row.manageConnections)
    pairs.push('execute-api:ManageConnections on live-connections');
  if (row.queue || row.kind === 'stream') for (const a of SEND_ACTIONS) pairs.push(`${a} on delivery-queue`);
  // The dispatcher queues tenants whose content changed for the indexer.
  if (row.kind === 'stream') for (const a of SEND_ACTIONS) pairs.push(`${a} on index-queue`);
  // And outgoing email.
  if (row.kind === 'stream') for (const a of SEND_ACTIONS) pairs.push(`${a} on email-queue`);
  if (row.mailLinks) pairs.push('s3:GetObject on mail:inbound/*', 's3:GetObject on mail:tenants/*');
  if (row.exportLinks) pairs.push('s3:GetObject on mail:exports/*');
  if (row.exportQueue) for (const a of SEND_ACTIONS) pairs.push(`${a} on export-queue`);
  if (row.eraseObjects) pairs.push('s3:DeleteObject on mail:inbound/*', 's3:DeleteObject on mail:tenants/*');
  if (row.sesIdentities) pairs.push('ses:GetEmailIdentity on ses-identities');
  return pairs.sort();
}

describe('IAM: each function may do exactly what its declaration needs', () => {
  it('allows exactly the expected actions on exactly the expected resources, declaration by declaration', () => {
    let checked = 0;
    for (const row of declared) {
      expect(allowedPairs(s, row), row.handler).toEqual(expectedPairs(row));
      checked++;
    }
    expect(checked).toBe(declared.length);
    // And the delivery worker, the indexer, the export function and the three email functions, checked on their own below.
    expect(s.stack.functions.size).toBe(declared.length + 6);
    for (const kind of ['http', 'socket', 'stream'] as const) expect(declared.some((r) => r.kind === kind)).toBe(true);
    // The table covers every case the assertion distinguishes.
    for (const kind of ['read', 'write', 'none'] as const) expect(routes.some((r) => r.table === kind)).toBe(true);
    expect(routes.filter((r) => r.kms).length).toBeGreaterThan(0);
  });

  it('grants reads only to read rows and writes to write rows', () => {
    expect(tableActions('read').sort()).toEqual(['dynamodb:BatchGetItem', 'dynamodb:GetItem', 'dynamodb:Query']);
    expect(tableActions('write').sort()).toEqual([
      'dynamodb:BatchGetItem',
      'dynamodb:ConditionCheckItem',
      'dynamodb:DeleteItem',
      'dynamodb:GetItem',
      'dynamodb:PutItem',
      'dynamodb:Query',
      'dynamodb:UpdateItem',
    ]);
    const writes = ['dynamodb:PutItem', 'dynamodb:UpdateItem', 'dynamodb:DeleteItem', 'dynamodb:ConditionCheckItem'];
    for (const row of routes.filter((r) => r.table === 'read')) {
      const pairs = allowedPairs(s, row);
      expect(
        pairs.filter((p) => writes.some((w) => p.startsWith(`${w} `))),
        row.handler,
      ).toEqual([]);
      expect(pairs, row.handler).toContain('dynamodb:GetItem on table');
    }
  });

  it('never allows Scan, wildcard actions or batch writes anywhere in the stack', () => {
    const text = JSON.stringify(s.resources);
    // match() rather than toMatch(): a failure names the hit, not the whole template.
    expect(text.match(/dynamodb:Scan/i)).toBeNull();
    expect(text.match(/dynamodb:BatchWriteItem/)).toBeNull();
    // Not the CDN's deployment role: BucketDeployment grants itself s3:GetObject* and the like (cdn.test.ts lists them).
    const identityPolicies = JSON.stringify([
      ...serviceOfType(s, 'AWS::IAM::Policy'),
      ...serviceOfType(s, 'AWS::IAM::Role'),
    ]);
    expect(identityPolicies.match(/"[a-z0-9-]+:[A-Za-z]*\*"/g)).toBeNull();
    expect(identityPolicies.match(/"Action":"\*"/g)).toBeNull();
  });

  it('lets only the kms rows use the credentials key, and only to make and open data keys', () => {
    const users = ofType(s, 'AWS::IAM::Policy')
      .filter(([, p]) => JSON.stringify(p.Properties.PolicyDocument).includes(`"${keyId}"`))
      .map(([id]) => id)
      .sort();
    const kmsRows = routes.filter((r) => r.kms);
    // And the delivery function, which may only decrypt (tested above).
    expect(users).toHaveLength(kmsRows.length + 1);
    const key = s.resources[keyId]!.Properties;
    expect(key.EnableKeyRotation).toBe(true);
    // The key policy only delegates to IAM in the account (CDK's default); no service or other account.
    const principals = key.KeyPolicy.Statement.map((st: any) => JSON.stringify(st.Principal));
    expect(principals).toHaveLength(1);
    expect(principals[0]).toMatch(/:root/);
  });

  it('lets only the dispatcher and the typing relay use execute-api: ManageConnections on their own WebSocket API and stage', () => {
    const statements = ofType(s, 'AWS::IAM::Policy').flatMap(([id, p]) =>
      p.Properties.PolicyDocument.Statement.map((st: any) => ({ id, st })),
    );
    const executeApi = statements.filter(({ st }) => JSON.stringify(st.Action).includes('execute-api:'));
    const posters = [eventDispatcher.handler, ...liveRoutes.filter((r) => r.manageConnections).map((r) => r.handler)];
    expect(posters).toEqual(['events/dispatch', 'live/typing']);
    const roleOf = (handler: string) =>
      refId(s.resources[logicalId(s, s.stack.functions.get(handler)!.fn)]!.Properties.Role);
    expect(executeApi).toHaveLength(posters.length);
    expect(executeApi.flatMap(({ id }) => s.resources[id]!.Properties.Roles.map(refId)).sort()).toEqual(
      posters.map(roleOf).sort(),
    );
    for (const { st } of executeApi) {
      expect(st.Action).toBe('execute-api:ManageConnections');
      const [apiId, rest] = executeApiArn(st.Resource['Fn::Join'])!;
      expect(apiId).toBe(liveApiId);
      expect(apiId).not.toBe(logicalId(s, s.stack.api.httpApi));
      expect(rest).toBe('/live/*/@connections/*');
    }
  });

  it('lets the delivery function use the table, open credentials and consume its own queue, nothing more', () => {
    expect(allowedPairs(s, s.stack.deliveries.fn)).toEqual(
      [
        ...expectedPairs({ table: 'write', kind: 'http' }).filter((p) => !p.startsWith('kms:')),
        'kms:Decrypt on key',
        ...[
          'sqs:ChangeMessageVisibility',
          'sqs:DeleteMessage',
          'sqs:GetQueueAttributes',
          'sqs:GetQueueUrl',
          'sqs:ReceiveMessage',
        ].map((a) => `${a} on delivery-queue`),
      ].sort(),
    );
    // Only the functions that queue deliveries may send to the queue; nobody may touch the dead-letter queue.
    const senders = routes
      .filter((r) => r.queue)
      .map((r) => r.handler)
      .sort();
    expect(senders).toEqual(['admin/redeliver', 'admin/test-integration']);
    const dlq = logicalId(s, s.stack.deliveries.deadLetters);
    const users = ofType(s, 'AWS::IAM::Policy').filter(([, p]) =>
      JSON.stringify(p.Properties.PolicyDocument).includes(`"${dlq}"`),
    );
    expect(users).toEqual([]);
  });

  it('lets the indexer use the table and consume its own queue, and send to it (a tenant queued again), nothing more', () => {
    expect(allowedPairs(s, s.stack.indexing.fn)).toEqual(
      [
        ...expectedPairs({ table: 'write', kind: 'http' }),
        // Its event source's grant, and its own to send (the two share GetQueueAttributes and GetQueueUrl).
        ...[
          'sqs:ChangeMessageVisibility',
          'sqs:DeleteMessage',
          'sqs:GetQueueAttributes',
          'sqs:GetQueueUrl',
          'sqs:ReceiveMessage',
          ...SEND_ACTIONS,
        ].map((a) => `${a} on index-queue`),
      ].sort(),
    );
  });

  it('lets the email functions do only their part: receive reads inbound mail, keeps parts and bounces a refusal, send sends through SES, events reads its queue', () => {
    const CONSUME = [
      'sqs:ChangeMessageVisibility',
      'sqs:DeleteMessage',
      'sqs:GetQueueAttributes',
      'sqs:GetQueueUrl',
      'sqs:ReceiveMessage',
    ];
    const base = expectedPairs({ table: 'write', kind: 'http' });
    expect(allowedPairs(s, s.stack.email.receive)).toEqual(
      [
        ...base,
        's3:GetObject on mail:inbound/*',
        's3:PutObject on mail:tenants/*',
        's3:DeleteObject on mail:tenants/*',
        'ses:SendEmail on ses-identities',
        'ses:SendRawEmail on ses-identities',
      ].sort(),
    );
    expect(allowedPairs(s, s.stack.email.send)).toEqual(
      [
        ...base,
        ...CONSUME.map((a) => `${a} on email-queue`),
        'ses:SendEmail on ses-identities',
        'ses:SendEmail on ses-configuration-set',
        'ses:SendRawEmail on ses-identities',
        'ses:SendRawEmail on ses-configuration-set',
      ].sort(),
    );
    expect(allowedPairs(s, s.stack.email.events)).toEqual(
      [...base, ...CONSUME.map((a) => `${a} on email-events-queue`)].sort(),
    );
    // Presigned links are signed by the one route that shows them.
    expect(routes.filter((r) => r.mailLinks).map((r) => r.handler)).toEqual(['admin/get-conversation']);
    // Settings alone reads whether a tenant's sending address is verified.
    expect(routes.filter((r) => r.sesIdentities).map((r) => r.handler)).toEqual(['admin/get-settings']);
    // Tenant exports are queued by the owner's export route, linked by its status route, and written by the export function alone.
    expect(routes.filter((r) => r.exportQueue).map((r) => r.handler)).toEqual(['admin/export-tenant']);
    expect(routes.filter((r) => r.exportLinks).map((r) => r.handler)).toEqual(['admin/get-tenant-export']);
    expect(allowedPairs(s, s.stack.exports.fn)).toEqual(
      [
        ...base,
        's3:PutObject on mail:exports/*',
        ...[
          'sqs:ChangeMessageVisibility',
          'sqs:DeleteMessage',
          'sqs:GetQueueAttributes',
          'sqs:GetQueueUrl',
          'sqs:ReceiveMessage',
        ].map((a) => `${a} on export-queue`),
      ].sort(),
    );
    // A customer's stored mail is deleted by their erasure alone.
    expect(routes.filter((r) => r.eraseObjects).map((r) => r.handler)).toEqual(['admin/erase-customer']);
  });

  it("gives no other role in the stack any permission (the functions, the CDN's deployment and the rule set's activation are the only principals)", () => {
    const roles = serviceOfType(s, 'AWS::IAM::Role');
    expect(roles).toHaveLength(s.stack.functions.size);
    expect(serviceOfType(s, 'AWS::IAM::Policy')).toHaveLength(s.stack.functions.size);
    // The CDN's deployment role; the activation function's and the provider framework's.
    expect(ofType(s, 'AWS::IAM::Role')).toHaveLength(s.stack.functions.size + 3);
  });
});
