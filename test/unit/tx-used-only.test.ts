import { describe, expect, it } from 'vitest';
import { usedOnly } from '#shared/data/tx.ts';

// A transaction item carries only the names and values its expressions read: DynamoDB refuses the
// whole request for one they do not (issue 38: a ticket that could no longer change).
describe('usedOnly', () => {
  it('drops the values and names no expression reads, keeping the others as they are', () => {
    const op = {
      Key: { pk: 'T#1', sk: 'TICKET#1' },
      UpdateExpression: 'SET #s = :s, assigneeId = :a',
      ConditionExpression: '#s = :rs AND (attribute_not_exists(assigneeId) OR assigneeId = :null) AND #p = :rp',
      ExpressionAttributeNames: { '#s': 'status', '#p': 'priority', '#unused': 'x' },
      ExpressionAttributeValues: {
        ':s': 'open',
        ':a': null,
        ':rs': 'waiting',
        ':rp': 'low',
        ':null': null,
        ':r_assigneeId': 'u1',
        ':r': 1,
      },
    };
    expect(usedOnly(op)).toEqual({
      ...op,
      ExpressionAttributeNames: { '#s': 'status', '#p': 'priority' },
      ExpressionAttributeValues: { ':s': 'open', ':a': null, ':rs': 'waiting', ':rp': 'low', ':null': null },
    });
  });

  it('tells a placeholder from a longer one that starts like it', () => {
    const op = { ConditionExpression: 'n = :read', ExpressionAttributeValues: { ':r': 1, ':read': 2, ':reader': 3 } };
    expect(usedOnly(op).ExpressionAttributeValues).toEqual({ ':read': 2 });
  });

  it('leaves out a map that would be empty (DynamoDB refuses an empty one too)', () => {
    const op = {
      Item: { pk: 'a' },
      ConditionExpression: 'attribute_not_exists(pk)',
      ExpressionAttributeValues: { ':v': 1 },
      ExpressionAttributeNames: { '#n': 'n' },
    };
    expect(usedOnly(op)).toEqual({ Item: { pk: 'a' }, ConditionExpression: 'attribute_not_exists(pk)' });
  });
});
