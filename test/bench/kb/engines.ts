// The knowledge bases under test. Each one imports articles and answers messages; the import is
// one function (`importArticles`), so that the engine can later be reached through the API
// (POST /articles/import, then POST /nlu/parse) without touching the benchmark.
import MiniSearch from 'minisearch';
import { buildKnowledgeIndex, DEFAULT_KNOWLEDGE_THRESHOLD, type KnowledgeIndexOptions, type StoredArticle } from '#shared/nlu/knowledge.ts';
import { prepareArticle, type ArticleInput, type PrepareOptions } from '#shared/nlu/knowledge-prepare.ts';

export interface Answer {
  sources: string[]; // article ids, best first (up to 10, for MRR@10)
  confidence: number; // of the first source, on the engine's own scale
}

export interface KnowledgeBase {
  ask(message: string): Answer;
}

export interface Engine {
  name: string;
  /** The default threshold, when the engine has one (MiniSearch's scores are unbounded: none). */
  threshold?: number;
  importArticles(articles: ArticleInput[]): KnowledgeBase;
}

export function ours(options: KnowledgeIndexOptions = {}, prepare: Partial<PrepareOptions> = {}): Engine {
  return {
    name: 'ours',
    threshold: DEFAULT_KNOWLEDGE_THRESHOLD,
    importArticles(articles) {
      // What the database would store and hand back: the prepared form, through JSON.
      const stored = JSON.parse(JSON.stringify(articles.map((a) => prepareArticle(a, prepare)))) as StoredArticle[];
      const index = buildKnowledgeIndex(stored, options);
      return {
        ask(message) {
          const hits = index.search(message, { limit: 10 });
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
    importArticles(articles) {
      const ms = new MiniSearch<{ id: string; title: string; body: string; questions: string }>({
        fields: ['title', 'body', 'questions'],
        searchOptions: { boost: { title: 2 }, fuzzy: 0.2 },
      });
      ms.addAll(articles.map((a) => ({ id: a.id, title: a.title, body: a.body, questions: (a.questions ?? []).join('\n') })));
      return {
        ask(message) {
          const hits = ms.search(message).slice(0, 10);
          return { sources: hits.map((h) => String(h.id)), confidence: hits[0]?.score ?? 0 };
        },
      };
    },
  };
}
