import { logger } from '#shared/core/log.ts';
import type { Tenant } from '#shared/data/tenants.ts';
import { vectorHash } from '#shared/data/keys.ts';
import { vectorsRepo, type VectorState } from '#shared/data/vectors.ts';
import type { TxItem } from '#shared/data/tx.ts';
import { dequantize, encoder, MESSAGE_TOKENS, quantize, type TextVectors } from '#shared/nlu/index.ts';
import { TenantModelCache } from '#shared/core/model-cache.ts';

// A tenant's stored sentence vectors on the chat path: read once per vectorsVersion in the warm
// container (the indexer bumps it after each pass that changed vectors the chat reads), inside the
// cached model loads, so a message never waits on a read the model did not already make. The
// encoder's runtime and weights load only when a message is embedded (see shared/nlu/encoder/encoder.ts).

type Stored = ReadonlyMap<string, Uint8Array>;

const stored = new TenantModelCache<Stored>(50);
// The unanswered view's, apart: its version moves with every pass that embeds unanswered messages, the chat's must not.
const withUnanswered = new TenantModelCache<Map<string, Uint8Array>>(10);
const NONE: Stored = new Map();

async function load(tenantId: string): Promise<Map<string, Uint8Array>> {
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

/**
 * The same with the unanswered view's `messages` up to date: for the unanswered view. A chat
 * writes a message's vector with its unanswered item (`unansweredVector`) and moves no version, so
 * the messages' vectors the cached ones lack are read by key (one BatchGet per 100).
 */
export async function unansweredVectorsOf(
  tenant: Pick<Tenant, 'id' | 'vectorsVersion' | 'unansweredVectorsVersion'>,
  messages: readonly string[],
): Promise<Stored> {
  const version = `${tenant.vectorsVersion ?? 0}.${tenant.unansweredVectorsVersion ?? 0}`;
  if (version === '0.0') return NONE;
  const s = await withUnanswered.get(tenant.id, version, () => load(tenant.id));
  const missing = [...new Set(messages.map((m) => vectorHash(m.trim())))].filter((h) => !s.has(h));
  if (missing.length) for (const [h, v] of await vectorsRepo.some(tenant.id, missing)) s.set(h, v);
  return s;
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

/**
 * What stores a customer's message's vector for the unanswered view, from the vector the chat read
 * (`messageVector`), keyed as the indexer keys it (the trimmed message): the chat writes it with the
 * message's unanswered item, and no indexing pass runs for the message. The indexer reads a message
 * to the same MESSAGE_TOKENS word pieces; the chat's text is the message's first 500 characters,
 * which hold more than that. Nothing when the tenant has the text's vector already: a content
 * text's (read at its whole length) stays as the indexer wrote it.
 */
export async function unansweredVector(
  tenant: Pick<Tenant, 'id' | 'vectorsVersion'>,
  message: string,
  vector: Float32Array,
): Promise<TxItem[]> {
  const hash = vectorHash(message.trim());
  return (await storedVectorsOf(tenant)).has(hash) ? [] : [vectorsRepo.tx.put(tenant.id, hash, quantize(vector))];
}
