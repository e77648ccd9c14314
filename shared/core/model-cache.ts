// Per-container cache of trained models, one entry per tenant holding its newest loaded
// version. Training is lazy (tens of milliseconds for a typical tenant), so a changed intent set
// is picked up by the first message that sees the bumped version, and an unchanged tenant is
// never retrained while the container stays warm.

interface Entry<T> {
  version: number | string;
  model: Promise<T>;
}

export class TenantModelCache<T> {
  private readonly entries = new Map<string, Entry<T>>(); // insertion order = recency (LRU)
  constructor(private readonly maxTenants = 200) {}

  get(tenantId: string, version: number | string, load: () => Promise<T>): Promise<T> {
    const hit = this.entries.get(tenantId);
    if (hit && hit.version === version) {
      this.entries.delete(tenantId);
      this.entries.set(tenantId, hit);
      return hit.model;
    }
    // A different version replaces the tenant's entry; concurrent callers for this version share
    // the one pending promise, so the intents are loaded and trained once.
    const entry: Entry<T> = { version, model: load() };
    this.entries.delete(tenantId);
    this.entries.set(tenantId, entry);
    entry.model.catch(() => {
      // A failed load must not stick: the next message tries again.
      if (this.entries.get(tenantId) === entry) this.entries.delete(tenantId);
    });
    while (this.entries.size > this.maxTenants) this.entries.delete(this.entries.keys().next().value as string);
    return entry.model;
  }
}
