import { Logger } from '@aws-lambda-powertools/logger';

// One structured JSON logger per container; the kit appends requestId, route and tenantId per request.
export const logger = new Logger({
  serviceName: process.env.POWERTOOLS_SERVICE_NAME ?? 'support-assistant',
  logLevel: (process.env.LOG_LEVEL as 'INFO' | 'DEBUG' | 'WARN' | 'ERROR' | 'SILENT' | undefined) ?? 'INFO',
});
