import { QueryCommand } from '@aws-sdk/lib-dynamodb';
import type { EntitySpec } from '#shared/nlu/entities.ts';
import { db, tableName } from './client.ts';
import { keys } from './keys.ts';
import { clean } from './items.ts';
import type { TxItem } from './tx.ts';

export interface Intent {
  id: string; name: string; description: string; trainingPhrases: string[]; response: string;
  entities: EntitySpec[]; action: 'reply' | 'escalate'; enabled: boolean; createdAt: string; updatedAt: string;
}

/** The Puts that create an intent: the intent and its name guard (names are unique per tenant). */
export function intentPuts(tenantId: string, intent: Intent): TxItem[] {
  return [
    { Put: { Item: { ...keys.intent(tenantId, intent.id), type: 'intent', ...intent }, ConditionExpression: 'attribute_not_exists(pk)' } },
    { Put: { Item: { ...keys.intentName(tenantId, intent.name), type: 'intentName', intentId: intent.id }, ConditionExpression: 'attribute_not_exists(pk)' } },
  ];
}

export const intentsRepo = {
  /** Every intent of a tenant with its hit count: one Query over `INTENT*` (intents and hit shards). */
  async list(tenantId: string): Promise<Array<Intent & { hitCount: number }>> {
    const { pk } = keys.intentPrefix(tenantId);
    const items: Record<string, unknown>[] = [];
    let ExclusiveStartKey: Record<string, unknown> | undefined;
    do {
      const r = await db.send(new QueryCommand({
        TableName: tableName(), KeyConditionExpression: 'pk = :pk AND begins_with(sk, :p)',
        ExpressionAttributeValues: { ':pk': pk, ':p': 'INTENT' }, ExclusiveStartKey,
      }));
      items.push(...(r.Items ?? []));
      ExclusiveStartKey = r.LastEvaluatedKey;
    } while (ExclusiveStartKey);
    const hits = new Map<string, number>();
    for (const it of items.filter((i) => (i.sk as string).startsWith(keys.intentHits(tenantId).sk))) {
      for (const [k, v] of Object.entries(it)) if (k.startsWith('h_')) hits.set(k.slice(2), (hits.get(k.slice(2)) ?? 0) + (v as number));
    }
    return items
      .filter((i) => (i.sk as string).startsWith('INTENT#'))
      .map((i) => ({ ...clean<Intent>(i), hitCount: hits.get(i.id as string) ?? 0 }))
      .sort((a, b) => a.name.localeCompare(b.name));
  },
};
