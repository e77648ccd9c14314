import { SendMessageCommand } from '@aws-sdk/client-sqs';
import { GetCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { config } from '#shared/core/config.ts';
import { db, tableName } from './client.ts';
import { sqs } from './delivery-queue.ts';
import { clean, keys } from './keys.ts';
import { TTL_ATTRIBUTE } from './table.ts';
import type { TxItem } from './tx.ts';

// Tenant exports run as jobs: the route writes the job item and queues it; the export function
// (functions/jobs/export-tenant.ts) writes the file to the objects bucket, counting its progress on
// the item. The item and the file both live a day.

export type ExportStatus = 'queued' | 'running' | 'done' | 'failed';

export interface ExportJob {
  id: string;
  tenantId: string;
  status: ExportStatus;
  items: number;
  requestedAt: string;
  startedAt: string | null;
  finishedAt: string | null;
  /** The file's key in the objects bucket, once written. */
  objectKey: string | null;
}

export interface ExportMessage {
  tenantId: string;
  exportId: string;
}

const DAY_SECONDS = 24 * 3600;

export const exportsRepo = {
  tx: {
    /** The Put of a new job. */
    create(job: ExportJob): TxItem {
      return {
        Put: {
          Item: {
            ...keys.tenantExport(job.tenantId, job.id),
            type: 'export',
            ...job,
            [TTL_ATTRIBUTE]: Math.floor(Date.parse(job.requestedAt) / 1000) + DAY_SECONDS,
          },
          ConditionExpression: 'attribute_not_exists(pk)',
        },
      };
    },
  },

  async get(tenantId: string, id: string): Promise<ExportJob | null> {
    const r = await db.send(
      new GetCommand({ TableName: tableName(), Key: keys.tenantExport(tenantId, id), ConsistentRead: true }),
    );
    if (!r.Item) return null;
    const { [TTL_ATTRIBUTE]: _ttl, ...job } = clean<ExportJob & { [TTL_ATTRIBUTE]: number }>(r.Item);
    return job;
  },

  /** Sets fields of a job that exists (a job gone with its tenant is not made again). */
  async update(
    tenantId: string,
    id: string,
    fields: Partial<Pick<ExportJob, 'status' | 'items' | 'startedAt' | 'finishedAt' | 'objectKey'>>,
  ): Promise<void> {
    const names = Object.keys(fields);
    await db.send(
      new UpdateCommand({
        TableName: tableName(),
        Key: keys.tenantExport(tenantId, id),
        ConditionExpression: 'attribute_exists(pk)',
        UpdateExpression: `SET ${names.map((_, i) => `#n${i} = :v${i}`).join(', ')}`,
        ExpressionAttributeNames: Object.fromEntries(names.map((n, i) => [`#n${i}`, n])),
        ExpressionAttributeValues: Object.fromEntries(
          names.map((n, i) => [`:v${i}`, fields[n as keyof typeof fields]]),
        ),
      }),
    );
  },

  async enqueue(m: ExportMessage): Promise<void> {
    await sqs().send(new SendMessageCommand({ QueueUrl: config.exportQueueUrl, MessageBody: JSON.stringify(m) }));
  },
};

export function parseExportMessage(body: string): ExportMessage | null {
  try {
    const m = JSON.parse(body) as Partial<ExportMessage>;
    return typeof m.tenantId === 'string' && typeof m.exportId === 'string'
      ? { tenantId: m.tenantId, exportId: m.exportId }
      : null;
  } catch {
    return null;
  }
}
