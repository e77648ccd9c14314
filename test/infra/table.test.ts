import { Match } from 'aws-cdk-lib/assertions';
import { describe, expect, it } from 'vitest';
import { INDEXES, tableDefinition, TTL_ATTRIBUTE } from '#shared/data/table.ts';
import { ofType, synth } from './synth.ts';

describe('the table, built from shared/data/table.ts', () => {
  const s = synth();
  const tables = ofType(s, 'AWS::DynamoDB::Table');

  it('is the only table, string keys pk/sk, on demand', () => {
    expect(tables).toHaveLength(1);
    s.template.hasResourceProperties('AWS::DynamoDB::Table', {
      KeySchema: [
        { AttributeName: tableDefinition.partitionKey, KeyType: 'HASH' },
        { AttributeName: tableDefinition.sortKey, KeyType: 'RANGE' },
      ],
      BillingMode: 'PAY_PER_REQUEST',
    });
    const attrs = tables[0]![1].Properties.AttributeDefinitions;
    expect(attrs.every((a: { AttributeType: string }) => a.AttributeType === 'S')).toBe(true);
    expect(attrs.map((a: { AttributeName: string }) => a.AttributeName).sort()).toEqual(
      ['pk', 'sk', ...INDEXES.flatMap((i) => [`${i}pk`, `${i}sk`])].sort(),
    );
  });

  it('has every index of the definition, projecting all attributes', () => {
    const gsis = tables[0]![1].Properties.GlobalSecondaryIndexes;
    expect(gsis).toHaveLength(tableDefinition.indexes.length);
    expect(gsis).toEqual(
      tableDefinition.indexes.map((i) => ({
        IndexName: i.name,
        KeySchema: [
          { AttributeName: i.partitionKey, KeyType: 'HASH' },
          { AttributeName: i.sortKey, KeyType: 'RANGE' },
        ],
        Projection: { ProjectionType: 'ALL' },
      })),
    );
  });

  it('has point-in-time recovery, deletion protection, encryption, TTL, and survives stack deletion', () => {
    s.template.hasResource('AWS::DynamoDB::Table', {
      Properties: Match.objectLike({
        PointInTimeRecoverySpecification: { PointInTimeRecoveryEnabled: true },
        DeletionProtectionEnabled: true,
        SSESpecification: { SSEEnabled: true },
        TimeToLiveSpecification: { AttributeName: TTL_ATTRIBUTE, Enabled: true },
      }),
      DeletionPolicy: 'Retain',
      UpdateReplacePolicy: 'Retain',
    });
    expect(TTL_ATTRIBUTE).toBe('expiresAt');
  });

  it('has a stream of new images, the only view the event dispatcher reads', () => {
    expect(tables[0]![1].Properties.StreamSpecification).toEqual({ StreamViewType: tableDefinition.stream });
    expect(tableDefinition.stream).toBe('NEW_IMAGE');
  });
});
