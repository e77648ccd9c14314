import type { Holdings } from '#shared/data/customers.ts';

/** A customer as found: their addresses, and their conversations as stored (read before any erasure). */
export interface Customer {
  emails: string[];
  conversationIds: string[];
  holdings: Holdings[];
}

/**
 * A channel's part of a customer kept outside their conversations (the email channel: stored
 * originals, suppression, lookups); its export is the document's field `name`.
 */
export interface PersonalSource {
  name: string;
  export(tenantId: string, c: Customer): Promise<unknown>;
  erase(tenantId: string, c: Customer): Promise<void>;
}
