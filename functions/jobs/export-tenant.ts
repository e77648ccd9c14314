import { logger } from '#shared/core/log.ts';
import { recordHandler } from '#shared/edge/queue.ts';
import { parseExportMessage } from '#shared/data/exports.ts';
import { runExport } from '#shared/domain/privacy/portability.ts';

// The export queue's consumer (shared/edge/triggers.ts: EXPORT_QUEUE): one tenant export per message.
export const handler = recordHandler(async (body) => {
  const m = parseExportMessage(body);
  // A malformed message would fail forever: it is logged and dropped.
  if (!m) {
    logger.error('export message dropped: not an export');
    return;
  }
  await runExport(m.tenantId, m.exportId);
});
