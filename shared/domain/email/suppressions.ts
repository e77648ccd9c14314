import { emailRepo } from '#shared/data/email.ts';

/** The addresses this tenant no longer emails, oldest first by address. */
export const listSuppressions = async (tenantId: string) => ({ items: await emailRepo.suppressed(tenantId) });
