import { trainClassifier, type Classifier, type TrainingIntent } from './classifier.ts';

// Per-container cache of trained classifiers, one entry per tenant holding its newest loaded
// version. Training is lazy (tens of milliseconds for a typical tenant), so a changed intent set
// is picked up by the first message that sees the bumped version, and an unchanged tenant is
// never retrained while the container stays warm.

interface Entry { version: number; model: Promise<Classifier> }

let maxTenants = 200;
const entries = new Map<string, Entry>(); // insertion order = recency (LRU)

export function classifierFor(tenantId: string, version: number, load: () => Promise<TrainingIntent[]>): Promise<Classifier> {
  const hit = entries.get(tenantId);
  if (hit && hit.version === version) {
    entries.delete(tenantId);
    entries.set(tenantId, hit);
    return hit.model;
  }
  // A different version replaces the tenant's entry; concurrent callers for this version share
  // the one pending promise, so the intents are loaded and trained once.
  const model = load().then((intents) => trainClassifier(intents));
  const entry: Entry = { version, model };
  entries.delete(tenantId);
  entries.set(tenantId, entry);
  model.catch(() => {
    // A failed load must not stick: the next message tries again.
    if (entries.get(tenantId) === entry) entries.delete(tenantId);
  });
  while (entries.size > maxTenants) {
    const oldest = entries.keys().next().value as string;
    entries.delete(oldest);
  }
  return model;
}

/** For tests and memory tuning. */
export function configureClassifierCache(options: { maxTenants?: number; clear?: boolean }): void {
  if (options.maxTenants !== undefined) maxTenants = Math.max(1, options.maxTenants);
  if (options.clear) entries.clear();
}
