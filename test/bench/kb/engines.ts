// The knowledge bases under test. Each one imports articles and answers messages. Ours goes through
// the API layer of a local runtime started in this process: each knowledge base is a fresh tenant,
// its articles go in by POST /admin/articles/import (chunks of 100) and each message is asked by
// POST /admin/nlu/parse, which answers as the next chat message would. The in-process engine is
// kept for tuning experiments (KB_OPTS, KB_PASSAGE), which the API cannot take.
import MiniSearch from 'minisearch';
import {
  buildKnowledgeIndex,
  DEFAULT_KNOWLEDGE_THRESHOLD,
  type KnowledgeIndexOptions,
  type StoredArticle,
} from '#shared/nlu/knowledge/retrieval.ts';
import { prepareArticle, type ArticleInput, type PrepareOptions } from '#shared/nlu/knowledge/prepare.ts';
import { DEFAULT_ARTICLE_THRESHOLD } from '#shared/nlu/policy/answer-policy.ts';

export interface Answer {
  sources: string[]; // article ids, best first (the API gives at most 3; scored as MRR@3)
  confidence: number; // of the first source, on the engine's own scale
}

export interface KnowledgeBase {
  ask(message: string): Promise<Answer>;
}

export interface Engine {
  name: string;
  /** The default threshold, when the engine has one (MiniSearch's scores are unbounded: none). */
  threshold?: number;
  importArticles(articles: ArticleInput[]): Promise<KnowledgeBase>;
  close?(): Promise<void>;
}

const URL_BASE = 'https://faq.example/';

/** A JSON call to the API of a local runtime with a bearer token; anything but 2xx throws. */
export const apiCaller = (baseUrl: string) => async (method: string, path: string, token: string, body?: unknown) => {
  const res = await fetch(baseUrl + path, {
    method,
    headers: {
      authorization: `Bearer ${token}`,
      ...(body === undefined ? {} : { 'content-type': 'application/json' }),
    },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  const text = await res.text();
  if (!res.ok) throw new Error(`${method} ${path}: ${res.status} ${text.slice(0, 300)}`);
  return text ? JSON.parse(text) : undefined;
};

/**
 * Ours through the API. Every tenant starts without intents (the starter set is deleted, so that
 * only the articles answer) and with `knowledge.threshold` 0, so that the best article comes back
 * with its confidence whatever it is: the benchmark applies the thresholds itself. `encoderOn`:
 * the runtime's indexer embeds each import, and the messages are asked once it is indexed (the
 * answers then carry the encoder's evidence, as they do for a tenant some minutes after an import);
 * off, the articles answer by their words alone.
 */
export async function oursThroughApi(encoderOn = true): Promise<Engine> {
  const { startLocalRuntime } = await import('../../../local/runtime.ts');
  const rt = await startLocalRuntime({ tableName: 'bench-kb', indexer: encoderOn });
  const call = apiCaller(rt.url);
  let tenants = 0;
  return {
    name: 'ours',
    threshold: DEFAULT_ARTICLE_THRESHOLD, // the API's confidence is the answer policy's calibrated one
    async importArticles(articles) {
      const token = await rt.idp.token({ sub: `bench-kb-${process.pid}-${tenants++}` });
      const admin = (path: string) => `/api/v1/admin${path}`;
      await call('POST', admin('/auth/onboard'), token, { tenantName: 'StackFAQ' });
      const intents = (await call('GET', admin('/intents'), token)).items as Array<{ id: string }>;
      for (const i of intents) await call('DELETE', admin(`/intents/${i.id}`), token);
      await call('PUT', admin('/settings'), token, { config: { knowledge: { threshold: 0 } } });
      for (let i = 0; i < articles.length; i += 100) {
        const chunk = articles.slice(i, i + 100).map(({ id, title, body, questions }) => ({
          title,
          body,
          url: URL_BASE + id,
          ...(questions?.length ? { questions } : {}),
        }));
        await call('POST', admin('/articles/import'), token, { articles: chunk });
      }
      // As a tenant's customers meet it once the import is indexed: every article with its sentence vectors.
      if (encoderOn) await untilIndexed(call, admin, token);
      return {
        async ask(message) {
          const r = (await call('POST', admin('/nlu/parse'), token, { message })) as {
            intentDetected: string;
            confidence: number;
            sources: Array<{ url: string }>;
          };
          return {
            sources: r.sources.map((s) => s.url.slice(URL_BASE.length)),
            confidence: r.intentDetected === 'knowledge_base' ? r.confidence : 0,
          };
        },
      };
    },
    close: () => rt.stop(),
  };
}

/**
 * Waits until no article of the tenant is `indexing` (its sentence vectors all written). A 503
 * (DynamoDB Local starved while the indexer embeds on a loaded machine) is polled again.
 */
async function untilIndexed(
  call: ReturnType<typeof apiCaller>,
  admin: (path: string) => string,
  token: string,
  ms = 600_000,
) {
  const until = Date.now() + ms;
  while (Date.now() < until) {
    let pending = false;
    let cursor: string | null = null;
    try {
      do {
        const page = (await call(
          'GET',
          admin(`/articles?limit=100${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`),
          token,
        )) as { items: Array<{ indexing: boolean }>; nextCursor: string | null };
        pending ||= page.items.some((a) => a.indexing);
        cursor = page.nextCursor;
      } while (cursor && !pending);
    } catch (e) {
      if (!String(e).includes(': 503 ')) throw e;
      pending = true;
    }
    if (!pending) return;
    await new Promise((resolve) => setTimeout(resolve, 500));
  }
  throw new Error(`the articles were not indexed within ${ms / 1000} s`);
}

/** The engine called directly, with options the API does not take (tuning only). */
export function oursInProcess(options: KnowledgeIndexOptions = {}, prepare: Partial<PrepareOptions> = {}): Engine {
  return {
    name: 'ours (in process)',
    threshold: DEFAULT_KNOWLEDGE_THRESHOLD,
    async importArticles(articles) {
      // What the database would store and hand back: the prepared form, through JSON.
      const stored = JSON.parse(JSON.stringify(articles.map((a) => prepareArticle(a, prepare)))) as StoredArticle[];
      const index = buildKnowledgeIndex(stored, options);
      return {
        async ask(message) {
          const hits = index.search(message, { limit: 3 });
          return { sources: hits.map((h) => h.articleId), confidence: hits[0]?.confidence ?? 0 };
        },
      };
    },
  };
}

/** MiniSearch (BM25+), title boosted and fuzzy terms: the best of the few settings tried (prefix search lost 20 points). */
export function miniSearch(): Engine {
  return {
    name: 'MiniSearch',
    async importArticles(articles) {
      const ms = new MiniSearch<{ id: string; title: string; body: string; questions: string }>({
        fields: ['title', 'body', 'questions'],
        searchOptions: { boost: { title: 2 }, fuzzy: 0.2 },
      });
      ms.addAll(
        articles.map((a) => ({ id: a.id, title: a.title, body: a.body, questions: (a.questions ?? []).join('\n') })),
      );
      return {
        async ask(message) {
          const hits = ms.search(message).slice(0, 3);
          return { sources: hits.map((h) => String(h.id)), confidence: hits[0]?.score ?? 0 };
        },
      };
    },
  };
}

/**
 * Ours in process with the sentence encoder's evidence, as the chat path answers once the articles
 * are indexed: the knowledge index with the articles' vectors, the message's vector, and the answer
 * policy's calibrated article probability (CALIBRATION_MEANING) against the default threshold.
 */
export function oursWithEncoder(): Engine {
  return {
    name: 'ours with the encoder (in process)',
    threshold: DEFAULT_ARTICLE_THRESHOLD,
    async importArticles(articles) {
      const { cachedVectors } = await import('../vectors/cache.ts');
      const { textsToEmbed } = await import('#shared/nlu/policy/to-embed.ts');
      const { evidenceFor, trainModel } = await import('#shared/domain/assistant/assistant.ts');
      const { articleProbability } = await import('#shared/nlu/policy/answer-policy.ts');
      const { wordVectors } = await import('#shared/nlu/encoder/glove-file.ts');
      const stored = JSON.parse(JSON.stringify(articles.map((a) => prepareArticle(a)))) as StoredArticle[];
      const vectors = await cachedVectors(textsToEmbed({ articles: stored }));
      const index = buildKnowledgeIndex(stored, { vectors, wordVectors: wordVectors() });
      const model = trainModel(1, []);
      return {
        async ask(message) {
          const [vector] = (await cachedVectors([message])).values();
          const { articles: hits } = evidenceFor(model, index, message, undefined, vector);
          return {
            sources: hits.map((h) => h.hit.articleId),
            confidence: hits[0] ? articleProbability(hits[0].evidence) : 0,
          };
        },
      };
    },
  };
}
