import { describe, expect, it } from 'vitest';
import { KMS_ACTIONS, tableActions } from '#infra/function.ts';
import { INDEXES } from '#shared/data/table.ts';
import { routes } from '#shared/http/routes/index.ts';
import type { Route } from '#shared/http/route.ts';
import { logicalId, ofType, refId, serviceOfType, synth, type Synth } from './synth.ts';

// Least privilege, proven on the template: every (action, resource) pair that a function's
// role allows is listed, resources named symbolically, and compared with what its row needs.

const s = synth();
const tableId = logicalId(s, s.stack.data.table);
const keyId = logicalId(s, s.stack.credentialsKey);

/** A policy resource as a symbol: `table`, `index:gsi1`, `key`, `log-group:<own>`, `*`. */
function symbol(resource: unknown, ownLogGroup: string): string {
  if (resource === '*') return '*';
  const id = refId(resource);
  if (id === tableId) return 'table';
  if (id === keyId) return 'key';
  if (id === ownLogGroup) return 'own-log-group';
  const join = (resource as any)?.['Fn::Join'];
  if (join && join[0] === '' && join[1].length === 2 && refId(join[1][0]) === tableId) {
    const m = /^\/index\/(\w+)$/.exec(join[1][1]);
    if (m) return `index:${m[1]}`;
  }
  return `UNEXPECTED ${JSON.stringify(resource)}`;
}

/** Every allowed pair of the role of one function, from all policies attached to that role. */
function allowedPairs(syn: Synth, row: Route): string[] {
  const f = syn.stack.functions.get(row.handler)!;
  const fnProps = syn.resources[logicalId(syn, f.fn)]!.Properties;
  const roleId = refId(fnProps.Role)!;
  const ownLogGroup = refId(fnProps.LoggingConfig.LogGroup)!;
  const role = syn.resources[roleId]!.Properties;
  // Nothing attached to the role but the inline policy below.
  expect(role.ManagedPolicyArns, row.handler).toBeUndefined();
  expect(role.Policies, row.handler).toBeUndefined();
  expect(role.PermissionsBoundary).toBeUndefined();

  const policies = ofType(syn, 'AWS::IAM::Policy').filter(([, p]) => p.Properties.Roles.some((r: unknown) => refId(r) === roleId));
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

function expectedPairs(row: Route): string[] {
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
  return pairs.sort();
}

describe('IAM: each function may do exactly what its row of the route table needs', () => {
  it('allows exactly the expected actions on exactly the expected resources, row by row', () => {
    let checked = 0;
    for (const row of routes) {
      expect(allowedPairs(s, row), row.handler).toEqual(expectedPairs(row));
      checked++;
    }
    expect(checked).toBe(routes.length);
    // The table covers every case the assertion distinguishes.
    for (const kind of ['read', 'write', 'none'] as const) expect(routes.some((r) => r.table === kind)).toBe(true);
    expect(routes.filter((r) => r.kms).length).toBeGreaterThan(0);
  });

  it('grants reads only to read rows and writes to write rows', () => {
    expect(tableActions('read').sort()).toEqual(['dynamodb:BatchGetItem', 'dynamodb:GetItem', 'dynamodb:Query']);
    expect(tableActions('write').sort()).toEqual([
      'dynamodb:BatchGetItem', 'dynamodb:ConditionCheckItem', 'dynamodb:DeleteItem', 'dynamodb:GetItem',
      'dynamodb:PutItem', 'dynamodb:Query', 'dynamodb:UpdateItem',
    ]);
    const writes = ['dynamodb:PutItem', 'dynamodb:UpdateItem', 'dynamodb:DeleteItem', 'dynamodb:ConditionCheckItem'];
    for (const row of routes.filter((r) => r.table === 'read')) {
      const pairs = allowedPairs(s, row);
      expect(pairs.filter((p) => writes.some((w) => p.startsWith(`${w} `))), row.handler).toEqual([]);
      expect(pairs, row.handler).toContain('dynamodb:GetItem on table');
    }
  });

  it('never allows Scan, wildcard actions or batch writes anywhere in the stack', () => {
    const text = JSON.stringify(s.template.toJSON());
    // match() rather than toMatch(): a failure names the hit, not the whole template.
    expect(text.match(/dynamodb:Scan/i)).toBeNull();
    expect(text.match(/dynamodb:BatchWriteItem/)).toBeNull();
    // Not the CDN's deployment role: BucketDeployment grants itself s3:GetObject* and the like (cdn.test.ts lists them).
    const identityPolicies = JSON.stringify([...serviceOfType(s, 'AWS::IAM::Policy'), ...serviceOfType(s, 'AWS::IAM::Role')]);
    expect(identityPolicies.match(/"[a-z0-9-]+:[A-Za-z]*\*"/g)).toBeNull();
    expect(identityPolicies.match(/"Action":"\*"/g)).toBeNull();
  });

  it('lets only the kms rows use the credentials key, and only to make and open data keys', () => {
    const users = ofType(s, 'AWS::IAM::Policy')
      .filter(([, p]) => JSON.stringify(p.Properties.PolicyDocument).includes(`"${keyId}"`))
      .map(([id]) => id).sort();
    const kmsRows = routes.filter((r) => r.kms);
    expect(users).toHaveLength(kmsRows.length);
    const key = s.resources[keyId]!.Properties;
    expect(key.EnableKeyRotation).toBe(true);
    // The key policy only delegates to IAM in the account (CDK's default); no service or other account.
    const principals = key.KeyPolicy.Statement.map((st: any) => JSON.stringify(st.Principal));
    expect(principals).toHaveLength(1);
    expect(principals[0]).toMatch(/:root/);
  });

  it('gives no other role in the stack any permission (the functions, and the CDN\'s deployment, are the only principals)', () => {
    const roles = serviceOfType(s, 'AWS::IAM::Role');
    expect(roles).toHaveLength(routes.length);
    expect(serviceOfType(s, 'AWS::IAM::Policy')).toHaveLength(routes.length);
    expect(ofType(s, 'AWS::IAM::Role')).toHaveLength(routes.length + 1);
  });
});
