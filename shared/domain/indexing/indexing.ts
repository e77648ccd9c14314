import { logger } from '#shared/core/log.ts';
import { articlesRepo } from '#shared/data/articles.ts';
import { examplesRepo } from '#shared/data/examples.ts';
import { intentsRepo } from '#shared/data/intents.ts';
import { vectorHash } from '#shared/data/keys.ts';
import { tenantsRepo } from '#shared/data/tenants.ts';
import { unansweredRepo } from '#shared/data/unanswered.ts';
import { vectorsRepo } from '#shared/data/vectors.ts';
import {
  articleTextsToEmbed,
  encoder,
  intentTextsToEmbed,
  MESSAGE_TOKENS,
  noneTextsToEmbed,
  quantize,
} from '#shared/nlu/index.ts';
import { starterIntents } from '#shared/domain/starter/intents.ts';
import { READ_CAP } from '#shared/domain/assistant/unanswered.ts';
import { clock } from '#shared/core/clock.ts';

// The indexer: after a write of a tenant's content (the outbox's `content.changed`, queued by the
// dispatcher), it embeds the texts that lack a vector, removes the vectors no text needs any more
// (a deleted article's, an edited phrase's), records which intents and articles are embedded, and
// bumps the tenant's vectorsVersion so the chat functions reload (unansweredVectorsVersion when
// only unanswered messages' vectors changed: the chat reads none of them). A pass reads the content
// as it is when it runs, writes only idempotent puts and deletes, and may stop part way when its
// time is up (the caller queues the tenant again): a retry or a duplicate message costs a pass that
// finds little to do, and the chat answers lexically from whatever is not embedded yet.

/** Texts per model call: small batches keep a shared event loop (the local runtime) responsive. */
const BATCH = 8;
/** Vectors of texts already embedded in this container, by text: starter content and texts many tenants share are embedded once. */
const CACHE_MAX = 50_000;
const cache = new Map<string, Uint8Array>();
/** How far back unanswered messages are embedded: the longest period the unanswered view reads. */
const UNANSWERED_DAYS = 366;

function remember(text: string, v: Uint8Array) {
  cache.delete(text);
  cache.set(text, v);
  if (cache.size > CACHE_MAX) cache.delete(cache.keys().next().value as string);
}

/**
 * The int8 vectors of `texts`, from the cache or the encoder, until `deadline` (epoch ms); the ones
 * done. The texts in `messages` are customers' words, read as the chat reads a message (its first
 * MESSAGE_TOKENS word pieces), so that their vectors compare with the chat's.
 */
export async function embedTexts(
  texts: string[],
  deadline: number,
  messages: ReadonlySet<string> = new Set(),
): Promise<Map<string, Uint8Array>> {
  const out = new Map<string, Uint8Array>();
  const missing: string[] = [];
  for (const t of texts) {
    const hit = cache.get(t);
    if (hit) out.set(t, hit);
    else missing.push(t);
  }
  if (missing.length === 0) return out;
  const model = await encoder();
  // Content first, then messages: a batch shares one cap.
  missing.sort((a, b) => Number(messages.has(a)) - Number(messages.has(b)));
  for (let i = 0; i < missing.length && clock.now() < deadline; i += BATCH) {
    let batch = missing.slice(i, i + BATCH);
    const asMessages = messages.has(batch[0]!);
    batch = batch.filter((t) => messages.has(t) === asMessages);
    i -= BATCH - batch.length;
    const vectors = await model.embed(batch, asMessages ? MESSAGE_TOKENS : undefined);
    batch.forEach((t, k) => {
      const q = quantize(vectors[k]!);
      remember(t, q);
      out.set(t, q);
    });
    // Lets other work of the process run between batches (the encoder holds the thread while it embeds).
    await new Promise((r) => setImmediate(r));
  }
  return out;
}

/** The starter intents' texts: the same for every tenant, their vectors are stored once (see shared/data/vectors.ts). */
const STARTER = new Set(starterIntents.flatMap((i) => intentTextsToEmbed(i)));

export interface IndexOutcome {
  embedded: number;
  removed: number;
  remaining: number;
}

/** One indexing pass over the tenant's content; `remaining` > 0 means the deadline stopped it. */
export async function indexTenant(tenantId: string, deadline: number): Promise<IndexOutcome> {
  const tenant = await tenantsRepo.get(tenantId, true);
  if (!tenant) return { embedded: 0, removed: 0, remaining: 0 };
  const to = clock.date();
  const from = new Date(to.getTime() - UNANSWERED_DAYS * 86_400_000);
  const day = (d: Date) => d.toISOString().slice(0, 10);
  const [intents, searchables, none, unanswered, stored, shared, state] = await Promise.all([
    intentsRepo.list(tenantId),
    articlesRepo.searchables(tenantId),
    examplesRepo.noneMessages(tenantId),
    unansweredRepo.read(tenantId, day(from), day(to), READ_CAP),
    vectorsRepo.all(tenantId),
    vectorsRepo.shared(),
    vectorsRepo.state(tenantId),
  ]);
  // An import in progress: its new articles are embedded before they show, and what they replace stays until then.
  // (`prev` first: an article's own state is its current form's.)
  const articles = searchables.flatMap(({ prev, importId: _, ...s }) => (prev ? [prev, s] : [s]));
  // Intent or article id -> its texts: it is embedded when all of them are.
  const owners = new Map<string, string[]>([
    ...intents.map((i): [string, string[]] => [i.id, intentTextsToEmbed(i)]),
    ...articles.map((a): [string, string[]] => [a.id, articleTextsToEmbed(a)]),
  ]);
  // The texts the chat's models read, then the unanswered messages, which only the unanswered view groups by meaning.
  const chatTexts = new Set([...[...owners.values()].flat(), ...noneTextsToEmbed(none)]);
  const messages = new Set([...noneTextsToEmbed(none), ...noneTextsToEmbed(unanswered.map((u) => u.message))]);
  const texts = [...new Set([...chatTexts, ...messages])];

  const hashOf = new Map(texts.map((t) => [t, vectorHash(t)]));
  const needed = new Set(hashOf.values());
  const missing = texts.filter((t) => !stored.has(hashOf.get(t)!) && !shared.has(hashOf.get(t)!));
  const done = await embedTexts(missing, deadline, messages);
  // The starter content's texts go to the shared partition (once for every tenant), the rest to the tenant's.
  const put: Array<[string, Uint8Array]> = [...done]
    .filter(([t]) => !STARTER.has(t))
    .map(([t, v]) => [hashOf.get(t)!, v]);
  const putShared: Array<[string, Uint8Array]> = [...done]
    .filter(([t]) => STARTER.has(t))
    .map(([t, v]) => [hashOf.get(t)!, v]);
  // A tenant's copy of a shared text (written before it was shared) goes too.
  const remove = [...stored.keys()].filter((h) => !needed.has(h) || shared.has(h));
  if (putShared.length) await vectorsRepo.writeShared(putShared);
  await vectorsRepo.write(tenantId, put, remove);

  const has = (t: string) => stored.has(hashOf.get(t)!) || shared.has(hashOf.get(t)!) || done.has(t);
  const updatedAt = new Map<string, string>([...intents, ...searchables].map((x) => [x.id, x.updatedAt]));
  const ready: Record<string, string> = {};
  for (const [id, own] of owners) if (own.every(has) && updatedAt.has(id)) ready[id] = updatedAt.get(id)!;
  const same =
    Object.keys(ready).length === Object.keys(state.owners).length &&
    Object.entries(ready).every(([id, at]) => state.owners[id] === at);
  // A `none` example taught from an unanswered message may have its vector already: the chat's
  // cached vectors (as of vectorsVersion) may still lack it, so a new one moves the version too.
  const noneEmbedded = noneTextsToEmbed(none).filter(has).sort();
  const noneDigest = noneEmbedded.length ? vectorHash(noneEmbedded.join('\n')) : undefined;
  const changed = done.size > 0 || remove.length > 0 || !same || noneDigest !== state.none;
  // The chat retrains its model and rebuilds its index when vectorsVersion moves: only for vectors
  // they read. A removed vector is one no current text needs, so no model reads it either.
  const forChat = !same || noneDigest !== state.none || [...done.keys()].some((t) => chatTexts.has(t));
  if (changed)
    await vectorsRepo.commit(
      tenantId,
      { owners: ready, ...(noneDigest ? { none: noneDigest } : {}) },
      forChat ? 'vectorsVersion' : 'unansweredVectorsVersion',
    );
  const outcome = { embedded: done.size, removed: remove.length, remaining: missing.length - done.size };
  if (changed) logger.debug('indexed', { tenantId, ...outcome, texts: texts.length });
  return outcome;
}
