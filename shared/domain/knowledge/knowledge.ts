import { articlesRepo, type Searchable, type SearchableItem } from '#shared/data/articles.ts';
import type { Tenant } from '#shared/data/tenants.ts';
import { TenantModelCache } from '#shared/core/model-cache.ts';
import {
  articleTextsToEmbed,
  buildKnowledgeIndex,
  type KnowledgeHit,
  type KnowledgeIndex,
  wordVectors,
} from '#shared/nlu/index.ts';
import { modelVersion, storedVectorsOf, textVectors } from '#shared/domain/vectors.ts';

// The knowledge base on the chat path: a tenant's published articles as a search index, cached in
// the warm container by the tenant's articlesVersion (every article write bumps it), so the next
// message after a change uses it and an unchanged tenant is never read again. This module never
// imports the Markdown parser: articles are stored already reduced to passages.

/**
 * What readers see of the stored items: while an import holds the tenant's lock, the items it
 * wrote show what they replaced (or nothing, for new ones), so a half-written import never answers.
 */
export function visibleArticles(items: SearchableItem[], pendingImport: string | undefined): Searchable[] {
  const out: Searchable[] = [];
  for (const { importId, prev, ...s } of items) {
    if (pendingImport !== undefined && importId === pendingImport) {
      if (prev) out.push(prev);
    } else out.push(s);
  }
  return out;
}

// Indexes are bigger than intent models (a few MB for 500 long articles): fewer tenants per container.
const indexes = new TenantModelCache<KnowledgeIndex>(50);

/** The index of the tenant's published articles at its current version. */
export function knowledgeIndexOf(
  tenant: Pick<Tenant, 'id' | 'articlesVersion' | 'articlesImportId' | 'vectorsVersion'>,
): Promise<KnowledgeIndex> {
  const version = tenant.articlesVersion ?? 0;
  // Keyed by the vectors' version too: an indexing pass makes the next message rebuild with them.
  return indexes.get(tenant.id, modelVersion(version, tenant), async () => {
    // No article was ever written: nothing to read.
    if (version === 0 && tenant.articlesImportId === undefined) return buildKnowledgeIndex([]);
    const [items, stored] = await Promise.all([articlesRepo.searchables(tenant.id), storedVectorsOf(tenant)]);
    const published = visibleArticles(items, tenant.articlesImportId).filter((a) => a.status === 'published');
    const vectors = textVectors(stored, published.flatMap(articleTextsToEmbed));
    return buildKnowledgeIndex(published, { wordVectors: wordVectors(), ...(vectors ? { vectors } : {}) });
  });
}

/** The reply: the passage that answers, then where it comes from. */
export function knowledgeReply(hit: Pick<KnowledgeHit, 'answer' | 'title' | 'url'>): string {
  const from = hit.url ? `${hit.title}: ${hit.url}` : hit.title;
  return hit.answer ? `${hit.answer}\n\n${from}` : from;
}

/** Article ids are `art_` + a ULID; anything else names none (and never reaches a key). */
export const isArticleId = (id: string) => /^art_[0-9A-HJKMNP-TV-Z]{26}$/.test(id);
