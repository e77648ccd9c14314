import { logger } from '#shared/core/log.ts';
import type { Tenant } from '#shared/data/tenants.ts';
import { vectorHash } from '#shared/data/keys.ts';
import { vectorsRepo, type VectorState } from '#shared/data/vectors.ts';
import { dequantize, encoder, MESSAGE_TOKENS, type TextVectors } from '#shared/nlu/index.ts';
import { TenantModelCache } from '#shared/core/model-cache.ts';

// A tenant's stored sentence vectors on the chat path: read once per vectorsVersion in the warm
// container (the indexer bumps it after each pass that changed vectors the chat reads), inside the
// cached model loads, so a message never waits on a read the model did not already make. The
// encoder's runtime and weights load only when a message is embedded (see shared/nlu/encoder/encoder.ts).

type Stored = ReadonlyMap<string, Uint8Array>;

const stored = new TenantModelCache<Stored>(50);
// The unanswered view's, apart: its version moves with every unanswered message embedded, the chat's must not.
const withUnanswered = new TenantModelCache<Stored>(10);
const NONE: Stored = new Map();

async function load(tenantId: string): Promise<Stored> {
  // The starter content's vectors, shared by every tenant, then the tenant's own.
  const [shared, own] = await Promise.all([vectorsRepo.shared(), vectorsRepo.all(tenantId)]);
  for (const [h, v] of own) shared.set(h, v);
  return shared;
}

/**
 * The tenant's vectors by text hash, or none when the indexer never ran for it. As of its
 * vectorsVersion: unanswered messages embedded since may be missing (their passes leave it alone).
 */
export function storedVectorsOf(tenant: Pick<Tenant, 'id' | 'vectorsVersion'>): Promise<Stored> {
  const version = tenant.vectorsVersion ?? 0;
  if (version === 0) return Promise.resolve(NONE);
  return stored.get(tenant.id, version, () => load(tenant.id));
}

/** The same with the unanswered messages' vectors up to date: for the unanswered view. */
export function unansweredVectorsOf(
  tenant: Pick<Tenant, 'id' | 'vectorsVersion' | 'unansweredVectorsVersion'>,
): Promise<Stored> {
  const version = `${tenant.vectorsVersion ?? 0}.${tenant.unansweredVectorsVersion ?? 0}`;
  if (version === '0.0') return Promise.resolve(NONE);
  return withUnanswered.get(tenant.id, version, () => load(tenant.id));
}

/** The vectors of `texts` that are stored (keyed by the trimmed text, as the models look them up); undefined when none is. */
export function textVectors(s: Stored, texts: Iterable<string>): TextVectors | undefined {
  if (s.size === 0) return undefined;
  const out = new Map<string, Float32Array>();
  for (const raw of texts) {
    const t = raw.trim();
    if (out.has(t)) continue;
    const v = s.get(vectorHash(t));
    if (v) out.set(t, dequantize(v));
  }
  return out.size ? out : undefined;
}

/** The version the chat's caches key a model by: its own version and the vectors' together. */
export const modelVersion = (own: number, tenant: Pick<Tenant, 'vectorsVersion'>) =>
  `${own}.${tenant.vectorsVersion ?? 0}`;

/**
 * Whether an intent or article (by id and `updatedAt`) still waits for its vectors: the dashboard
 * shows it as indexing. One read of the indexer's state item.
 */
export async function indexingOf(tenantId: string): Promise<(x: { id: string; updatedAt: string }) => boolean> {
  return indexingFrom(await vectorsRepo.state(tenantId));
}

/** `indexingOf` from the state a caller read with its own items (`vectorsRepo.stateKey`, `stateOf`). */
export const indexingFrom =
  ({ owners }: VectorState) =>
  (x: { id: string; updatedAt: string }) =>
    owners[x.id] !== x.updatedAt;

/** A customer's message as a vector, once per message, only for a tenant that has vectors. */
export async function messageVector(
  tenant: Pick<Tenant, 'id' | 'vectorsVersion'>,
  text: string,
  maxTokens = MESSAGE_TOKENS,
): Promise<Float32Array | undefined> {
  if (!tenant.vectorsVersion) return undefined;
  try {
    // The encoder's runtime and weights load on this first call (the functions that never embed never load them).
    const [v] = await (await encoder()).embed([text], maxTokens, tenant.id);
    return v;
  } catch (e) {
    // A function without the encoder's files, or a failed load: the message is answered from its words.
    logger.warn('message not embedded', { error: e as Error });
    return undefined;
  }
}
