import { useEffect, useId, useState, type FormEvent } from 'react';
import { keepPreviousData, useQuery } from '@tanstack/react-query';
import { Link } from 'react-router';
import { ok } from '../api/client.ts';
import type { Parse } from '../api/types.ts';
import { useApp } from '../context.tsx';
import { ErrorState, Field, fieldErrorsOf, percent } from '../ui/index.tsx';

// "Try a message" (Intents and Knowledge): what the next chat message would get from POST
// /nlu/parse, which stores and counts nothing. It asks as the admin types, 250 ms after the last
// key; a request whose text is no longer the box's is cancelled (its query key is left behind,
// and TanStack Query aborts the fetch through the signal).

const DEBOUNCE_MS = 250;
const httpUrl = (url: string | null) => (url && /^https?:\/\//i.test(url) ? url : null);

export function TryMessage({ lead, placeholder = 'where is my order 12345?' }: { lead: string; placeholder?: string }) {
  const { api } = useApp();
  const id = useId();
  const [message, setMessage] = useState('');
  const [asked, setAsked] = useState('');
  useEffect(() => {
    const t = setTimeout(() => setAsked(message.trim()), DEBOUNCE_MS);
    return () => clearTimeout(t);
  }, [message]);
  const parse = useQuery({
    queryKey: ['nlu-parse', asked],
    queryFn: ({ signal }) => ok(api.POST('/api/v1/admin/nlu/parse', { body: { message: asked }, signal })),
    enabled: asked !== '',
    // Intents and articles change under it: ask again rather than trust an older answer.
    staleTime: 0,
    gcTime: 30_000,
    retry: false,
    placeholderData: keepPreviousData,
  });
  const errors = fieldErrorsOf(parse.error);
  // Enter asks at once.
  const submit = (e: FormEvent) => {
    e.preventDefault();
    setAsked(message.trim());
  };
  const shown = message.trim() === '' ? undefined : parse.data;
  return (
    <section className="card try" aria-labelledby={`${id}-h`}>
      <h2 id={`${id}-h`}>Try a message</h2>
      <p className="muted small">{lead}</p>
      <form className="inline-form" onSubmit={submit}>
        <Field label="Customer message" error={errors.message}>
          {(p) => (
            <input
              {...p}
              value={message}
              maxLength={2000}
              onChange={(e) => setMessage(e.target.value)}
              placeholder={placeholder}
              autoComplete="off"
            />
          )}
        </Field>
        <span className="try-busy muted small" aria-hidden={!parse.isFetching}>
          {parse.isFetching ? 'Asking…' : ''}
        </span>
      </form>
      {parse.isError && !errors.message && <ErrorState error={parse.error} retry={() => void parse.refetch()} />}
      <div role="status" className="try-result">
        {shown && <ParseResult result={shown} />}
      </div>
    </section>
  );
}

function ParseResult({ result }: { result: Parse }) {
  const entities = Object.entries(result.entitiesExtracted);
  return (
    <>
      <p className="label">The assistant would answer</p>
      <p className="bubble">{result.reply}</p>
      {result.intentDetected === 'knowledge_base' ? (
        <p>Answered from the help articles, confidence {percent(result.confidence)}.</p>
      ) : result.intentDetected === 'fallback' ? (
        <p>
          Falls back: neither an intent nor a help article is close enough (confidence {percent(result.confidence)}), so
          the assistant sends the fallback message.
        </p>
      ) : (
        <p>
          Detected <strong>{result.intentDetected}</strong> with confidence {percent(result.confidence)}.
        </p>
      )}
      {result.sources.length > 0 && (
        <div className="sources">
          <p className="label">Sources</p>
          <ol>
            {result.sources.map((s) => {
              const url = httpUrl(s.url);
              return (
                <li key={s.articleId}>
                  {url ? (
                    <a href={url} target="_blank" rel="noopener noreferrer">
                      {s.title}
                    </a>
                  ) : (
                    <span>{s.title}</span>
                  )}
                  {' · '}
                  <Link to={`/knowledge/${encodeURIComponent(s.articleId)}`}>
                    Open the article<span className="visually-hidden"> {s.title}</span>
                  </Link>
                </li>
              );
            })}
          </ol>
        </div>
      )}
      {entities.length > 0 && <p>Entities: {entities.map(([k, v]) => `${k} = ${v}`).join(', ')}</p>}
      {result.intentRanking.length > 0 && (
        <details>
          <summary>Intent ranking</summary>
          <ol className="muted">
            {result.intentRanking.map((r) => (
              <li key={r.intent}>
                {r.intent}: {percent(r.confidence)}
              </li>
            ))}
          </ol>
        </details>
      )}
    </>
  );
}
