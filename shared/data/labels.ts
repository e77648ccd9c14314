import { clean, keys } from './keys.ts';
import { queryAll, queryPage, type Page } from './lists.ts';
import type { TxItem } from './tx.ts';

// Labels a team puts on conversations. Access patterns:
// - the tenant's labels with their counts: one Query of `TENANT#t#LABELS` (one item per label,
//   `count` moved by the writes that add or remove it; the first spelling is the one kept);
// - the conversations of a label, newest first: one Query of that label's partition, whose items
//   name the conversation, then a BatchGet of the conversations;
// - a conversation's own labels: on the conversation item, with `labelsRev` guarding a change.
// Labels compare with case, width and spacing folded: "VIP", "vip" and "ｖｉｐ" are one label.

export interface LabelCount {
  name: string;
  count: number;
}

/** The form two labels are compared in. */
export const labelKey = (name: string) => name.normalize('NFKC').toLowerCase().replace(/\s+/g, ' ').trim();

export const labelsRepo = {
  /** Every label the tenant has used, with the number of conversations carrying it now (0 included). */
  async list(tenantId: string): Promise<Array<LabelCount & { key: string }>> {
    const items = await queryAll({
      partition: { name: 'pk', value: keys.labelsPartition(tenantId) },
      consistent: true,
    });
    return items.map((i) => {
      const { name, count } = clean<LabelCount>(i);
      return { key: (i.sk as string).slice('LABEL#'.length), name, count: Number(count ?? 0) };
    });
  },

  /** A page of the ids of the conversations that carry a label, newest first. */
  async conversationIds(
    tenantId: string,
    name: string,
    filters: Record<string, string | undefined>,
    limit: number,
    cursor?: string,
  ): Promise<Page<string>> {
    const page = await queryPage(
      { partition: { name: 'pk', value: keys.labelledPartition(tenantId, labelKey(name)) } },
      { tenantId, list: 'conversations', filters },
      limit,
      cursor,
    );
    return { items: page.items.map((i) => i.conversationId as string), nextCursor: page.nextCursor };
  },

  tx: {
    /** A label put on a conversation: its entry in the label's list and one more in its count (the spelling kept if new). */
    add(tenantId: string, name: string, conv: { id: string; createdAt: string }): TxItem[] {
      const key = labelKey(name);
      return [
        {
          Put: {
            Item: {
              ...keys.labelled(tenantId, key, conv.createdAt, conv.id),
              type: 'labelled',
              conversationId: conv.id,
            },
          },
        },
        {
          Update: {
            Key: keys.label(tenantId, key),
            UpdateExpression: 'ADD #c :one SET #n = if_not_exists(#n, :name), #t = :type',
            ExpressionAttributeNames: { '#c': 'count', '#n': 'name', '#t': 'type' },
            ExpressionAttributeValues: { ':one': 1, ':name': name, ':type': 'label' },
          },
        },
      ];
    },

    /** A label taken off a conversation. */
    remove(tenantId: string, name: string, conv: { id: string; createdAt: string }): TxItem[] {
      const key = labelKey(name);
      return [
        { Delete: { Key: keys.labelled(tenantId, key, conv.createdAt, conv.id) } },
        {
          Update: {
            Key: keys.label(tenantId, key),
            UpdateExpression: 'ADD #c :less',
            ConditionExpression: 'attribute_exists(pk)',
            ExpressionAttributeNames: { '#c': 'count' },
            ExpressionAttributeValues: { ':less': -1 },
          },
        },
      ];
    },
  },
};
