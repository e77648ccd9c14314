import { lazy, Suspense, useDeferredValue, useId, useState, type ChangeEvent, type FormEvent } from 'react';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { Link, useLocation, useNavigate, useParams, useSearchParams } from 'react-router';
import { ok, type Body } from '../api/client.ts';
import { ApiError, describeError, describePath, plainMessage } from '../api/problem.ts';
import { ARTICLE_STATUSES as STATUSES, type Article, type ArticleStatus } from '../api/types.ts';
import { useApp, useMember } from '../context.tsx';
import { atLeast } from '../roles.ts';
import {
  Badge,
  Confirm,
  Empty,
  ErrorState,
  Field,
  FormError,
  Loading,
  Page,
  Pager,
  RequestId,
  useFieldErrors,
  usePager,
  When,
} from '../ui/index.tsx';
import { TryMessage } from './TryMessage.tsx';

// Help articles: the list with search, a JSON import, "Try a message", and
// the editor with a Markdown preview. The preview's renderer is a chunk of its own, loaded by the editor.
const MarkdownPreview = lazy(() => import('./MarkdownPreview.tsx'));

type ArticleInput = Body<'/api/v1/admin/articles', 'post'>;
type ImportInput = Body<'/api/v1/admin/articles/import', 'post'>;
const MAX_IMPORT = 100;
const IMPORT_LABELS = {
  title: 'its title',
  body: 'its body',
  url: 'its url',
  tags: 'its tags',
  questions: 'its questions',
  status: 'its status',
};

export default function Knowledge() {
  const { id } = useParams();
  return id ? <ArticleEditor key={id} id={id === 'new' ? null : id} /> : <ArticleList />;
}

function ArticleList() {
  const { api } = useApp();
  const member = useMember();
  const admin = atLeast(member.role, 'admin');
  const [params, setParams] = useSearchParams();
  const search = params.get('q') ?? '';
  const status = STATUSES.find((s) => s === params.get('status'));
  const [q, setQ] = useState(search);
  const pager = usePager(`${search}|${status}`);
  const list = useQuery({
    queryKey: ['articles', search, status, pager.cursor],
    queryFn: () =>
      ok(
        api.GET('/api/v1/admin/articles', {
          params: {
            query: {
              ...(search ? { q: search } : {}),
              ...(status ? { status } : {}),
              ...(pager.cursor ? { cursor: pager.cursor } : {}),
            },
          },
        }),
      ),
  });
  const set = (key: string, value: string) => {
    const next = new URLSearchParams(params);
    if (value) next.set(key, value);
    else next.delete(key);
    setParams(next);
  };
  return (
    <Page
      title="Knowledge"
      actions={
        admin ? (
          <Link className="button primary" to="/knowledge/new">
            New article
          </Link>
        ) : undefined
      }
    >
      <p className="lead">
        Help articles the assistant answers from when no intent fits: it replies with the passage that answers the
        customer, and links the article.
      </p>
      <div className="grid-2">
        <TryMessage
          placeholder="do you offer gift wrapping?"
          lead="What the assistant would answer, as you type: from an intent, from the help articles (with its sources), or the fallback. Nothing is stored or counted."
        />
        {admin && <ImportArticles />}
      </div>
      <section className="card" aria-labelledby="articles-h">
        <h2 id="articles-h">Articles</h2>
        <form
          className="filters"
          aria-label="Search articles"
          onSubmit={(e) => {
            e.preventDefault();
            set('q', q.trim());
          }}
        >
          <Field label="Search articles">
            {(p) => <input {...p} type="search" value={q} maxLength={200} onChange={(e) => setQ(e.target.value)} />}
          </Field>
          <button type="submit">Search</button>
          <Field label="Status">
            {(p) => (
              <select {...p} value={status ?? ''} onChange={(e) => set('status', e.target.value)}>
                <option value="">All</option>
                {STATUSES.map((s) => (
                  <option key={s} value={s}>
                    {s === 'published' ? 'Published' : 'Draft'}
                  </option>
                ))}
              </select>
            )}
          </Field>
        </form>
        {list.isPending ? (
          <Loading />
        ) : list.isError ? (
          <ErrorState error={list.error} retry={() => void list.refetch()} />
        ) : list.data.items.length === 0 ? (
          <Empty>{search || status ? 'No article matches.' : 'No article yet.'}</Empty>
        ) : (
          <>
            {search && <p className="muted small">Best match first, as the assistant ranks them.</p>}
            <div className="table-wrap">
              <table className="table">
                <thead>
                  <tr>
                    <th scope="col">Title</th>
                    <th scope="col">Status</th>
                    <th scope="col" className="wide-only">
                      Tags
                    </th>
                    <th scope="col">Hits</th>
                    <th scope="col" className="wide-only">
                      Updated
                    </th>
                  </tr>
                </thead>
                <tbody>
                  {list.data.items.map((a) => (
                    <tr key={a.id}>
                      <th scope="row">
                        <Link to={`/knowledge/${encodeURIComponent(a.id)}`}>{a.title}</Link>
                      </th>
                      <td>
                        <Badge value={a.status} />
                      </td>
                      <td className="wide-only">
                        {a.tags.length ? a.tags.join(', ') : <span className="muted">—</span>}
                      </td>
                      <td>{a.hits}</td>
                      <td className="wide-only">
                        <When iso={a.updatedAt} />
                      </td>
                    </tr>
                  ))}
                </tbody>
              </table>
            </div>
            <Pager pager={pager} nextCursor={list.data.nextCursor} label="Article" />
          </>
        )}
      </section>
    </Page>
  );
}

/** What a chosen file holds: the articles to send, or why it cannot be sent. */
type Chosen = { name: string; articles: ImportInput['articles'] } | { name: string; problem: string };

async function readImportFile(file: File): Promise<Chosen> {
  let parsed: unknown;
  try {
    parsed = JSON.parse(await file.text());
  } catch (e) {
    return { name: file.name, problem: `This file is not JSON (${e instanceof Error ? e.message : String(e)}).` };
  }
  const articles = Array.isArray(parsed)
    ? parsed
    : parsed && typeof parsed === 'object'
      ? (parsed as { articles?: unknown }).articles
      : undefined;
  if (!Array.isArray(articles))
    return { name: file.name, problem: 'The file must hold { "articles": [ ... ] } or a list of articles.' };
  if (articles.length < 1 || articles.length > MAX_IMPORT) {
    return {
      name: file.name,
      problem: `The file holds ${articles.length} articles; an import takes 1 to ${MAX_IMPORT}. Split it into several files.`,
    };
  }
  // Each article's fields are checked by the service, which names any bad one by its index.
  return { name: file.name, articles: articles as ImportInput['articles'] };
}

const titleOf = (a: unknown) =>
  a && typeof a === 'object' && typeof (a as { title?: unknown }).title === 'string'
    ? (a as { title: string }).title
    : '';

/** Bulk import of a JSON file (POST /articles/import): all or nothing on the server. */
function ImportArticles() {
  const { api } = useApp();
  const qc = useQueryClient();
  const id = useId();
  const [chosen, setChosen] = useState<Chosen | null>(null);
  const run = useMutation({
    mutationFn: (articles: ImportInput['articles']) =>
      ok(api.POST('/api/v1/admin/articles/import', { body: { articles } })),
    onSuccess: () => void qc.invalidateQueries({ queryKey: ['articles'] }),
  });
  const pick = async (e: ChangeEvent<HTMLInputElement>) => {
    run.reset();
    const file = e.target.files?.[0];
    setChosen(file ? await readImportFile(file) : null);
  };
  const articles = chosen && 'articles' in chosen ? chosen.articles : null;
  const fieldErrors = run.error instanceof ApiError ? (run.error.problem.errors ?? []) : [];
  return (
    <section className="card import" aria-labelledby={`${id}-h`}>
      <h2 id={`${id}-h`}>Import articles</h2>
      <p className="muted small">
        A JSON file of 1 to {MAX_IMPORT} articles:{' '}
        <code>{'{ "articles": [ { "title", "body", "url", "tags", "questions", "status" } ] }'}</code>. An article whose{' '}
        <code>url</code> is already used replaces that article. One bad article and nothing is imported.
      </p>
      <form
        className="inline-form"
        onSubmit={(e) => {
          e.preventDefault();
          if (articles) run.mutate(articles);
        }}
      >
        <Field label="JSON file" {...(chosen && 'problem' in chosen ? { error: chosen.problem } : {})}>
          {(p) => <input {...p} type="file" accept="application/json,.json" onChange={(e) => void pick(e)} />}
        </Field>
        <button type="submit" className="primary" disabled={!articles || run.isPending}>
          {articles ? `Import ${articles.length} article${articles.length === 1 ? '' : 's'}` : 'Import'}
        </button>
      </form>
      {run.isPending && <Loading label="Importing…" />}
      {run.data && (
        <p role="status" className="success">
          Imported {chosen?.name}: {run.data.created} created, {run.data.updated} updated.
        </p>
      )}
      {run.isError &&
        (fieldErrors.length > 0 ? (
          <div className="error" role="alert">
            <p>
              Nothing was imported: {fieldErrors.length === 1 ? 'one value needs' : `${fieldErrors.length} values need`}{' '}
              changing in the file.
            </p>
            <ul className="import-errors">
              {fieldErrors.map((f) => {
                const m = /^articles\.(\d+)(?:\.|$)/.exec(f.path);
                const title = m && articles ? titleOf(articles[Number(m[1])]) : '';
                const field = m ? f.path.slice(m[0].length) : f.path;
                return (
                  <li key={f.path}>
                    {m && (
                      <>
                        Article {Number(m[1]) + 1} of the file{title ? ` (“${title}”)` : ''}:{' '}
                      </>
                    )}
                    {field ? describePath(field, IMPORT_LABELS) : 'It'} {plainMessage(f.message)}.
                  </li>
                );
              })}
            </ul>
          </div>
        ) : (
          <div className="error" role="alert">
            <p>Nothing was imported: {describeError(run.error)}</p>
            <RequestId error={run.error} />
          </div>
        ))}
    </section>
  );
}

function ArticleEditor({ id }: { id: string | null }) {
  const { api } = useApp();
  const member = useMember();
  const article = useQuery({
    queryKey: ['article', id],
    queryFn: () => ok(api.GET('/api/v1/admin/articles/{id}', { params: { path: { id: id! } } })),
    enabled: id !== null,
  });
  return (
    <Page title={id === null ? 'New article' : (article.data?.title ?? 'Article')}>
      <p>
        <Link to="/knowledge">All articles</Link>
      </p>
      {id !== null && article.isPending ? (
        <Loading />
      ) : id !== null && article.isError ? (
        <ErrorState error={article.error} retry={() => void article.refetch()} />
      ) : (
        <ArticleForm id={id} initial={article.data ?? null} readOnly={!atLeast(member.role, 'admin')} />
      )}
    </Page>
  );
}

const lines = (s: string) =>
  s
    .split('\n')
    .map((x) => x.trim())
    .filter(Boolean);

function ArticleForm({ id, initial, readOnly }: { id: string | null; initial: Article | null; readOnly: boolean }) {
  const { api } = useApp();
  const qc = useQueryClient();
  const navigate = useNavigate();
  const state = useLocation().state as { saved?: boolean; draft?: { title: string; questions: string[] } } | null;
  const created = state?.saved === true;
  // "Write an article" on the Unanswered screen: a draft with the group's label and questions.
  const draft = id === null && !initial ? state?.draft : undefined;
  const [f, setF] = useState({
    title: initial?.title ?? draft?.title ?? '',
    body: initial?.body ?? '',
    url: initial?.url ?? '',
    tags: (initial?.tags ?? []).join(', '),
    questions: (initial?.questions ?? draft?.questions ?? []).join('\n'),
    status: initial?.status ?? (draft ? 'draft' : 'published'),
  });
  const set = <K extends keyof typeof f>(k: K, v: (typeof f)[K]) => setF((x) => ({ ...x, [k]: v }));
  // The preview follows the text without holding up typing in a long article.
  const previewBody = useDeferredValue(f.body);
  const save = useMutation({
    mutationFn: (body: ArticleInput) =>
      id
        ? ok(api.PUT('/api/v1/admin/articles/{id}', { params: { path: { id } }, body }))
        : ok(api.POST('/api/v1/admin/articles', { body })),
    onSuccess: (a) => {
      void qc.invalidateQueries({ queryKey: ['articles'] });
      qc.setQueryData(['article', a.id], a);
      // The editor of the new id replaces this one: it says "Saved" from the navigation's state.
      if (!id) navigate(`/knowledge/${encodeURIComponent(a.id)}`, { replace: true, state: { saved: true } });
    },
  });
  const errors = useFieldErrors(save.error, {
    title: 'Title',
    body: 'Body',
    url: 'Page URL',
    tags: 'Tags',
    questions: 'Other ways to ask',
    status: 'Status',
  });
  const remove = async () => {
    await ok(api.DELETE('/api/v1/admin/articles/{id}', { params: { path: { id: id! } } }));
    void qc.invalidateQueries({ queryKey: ['articles'] });
    navigate('/knowledge');
  };
  const submit = (e: FormEvent) => {
    e.preventDefault();
    save.mutate({
      title: f.title,
      body: f.body,
      url: f.url.trim() || null,
      status: f.status,
      tags: f.tags
        .split(',')
        .map((s) => s.trim())
        .filter(Boolean),
      questions: lines(f.questions),
    });
  };
  return (
    <form className="card form" onSubmit={submit} noValidate aria-label="Article">
      <fieldset disabled={readOnly}>
        {readOnly && <p className="notice">Your role can read articles; an admin can change them.</p>}
        {draft && (
          <p className="notice">
            A draft from unanswered messages: their questions are filled in. Write the answer in the body, then set the
            status to Published.
          </p>
        )}
        <Field label="Title" {...errors.field('title')}>
          {(p) => <input {...p} value={f.title} maxLength={200} onChange={(e) => set('title', e.target.value)} />}
        </Field>
        <div className="editor-split">
          <Field
            label="Body"
            {...errors.field('body')}
            hint="Markdown: **bold**, _italic_, lists, [links](https://…). HTML is shown as text."
          >
            {(p) => (
              <textarea
                {...p}
                className="body-input"
                rows={16}
                value={f.body}
                maxLength={20_000}
                onChange={(e) => set('body', e.target.value)}
              />
            )}
          </Field>
          <section className="md-preview" aria-labelledby="preview-h">
            <h2 id="preview-h" className="field-label">
              Preview
            </h2>
            <div className="markdown">
              {previewBody.trim() ? (
                <Suspense fallback={<Loading label="Loading the preview…" />}>
                  <MarkdownPreview markdown={previewBody} />
                </Suspense>
              ) : (
                <p className="muted">The body, formatted, shows here.</p>
              )}
            </div>
          </section>
        </div>
        <Field
          label="Page URL"
          {...errors.field('url')}
          hint="Optional: the article on your help centre (https). The assistant links it under its answers."
        >
          {(p) => (
            <input
              {...p}
              type="url"
              value={f.url}
              onChange={(e) => set('url', e.target.value)}
              placeholder="https://help.example.com/returns"
            />
          )}
        </Field>
        <Field label="Tags" {...errors.field('tags')} hint="Comma-separated, at most 20.">
          {(p) => <input {...p} value={f.tags} onChange={(e) => set('tags', e.target.value)} />}
        </Field>
        <Field
          label="Other ways to ask"
          {...errors.field('questions')}
          hint="One question per line, at most 20: how customers might ask what this article answers."
        >
          {(p) => <textarea {...p} rows={4} value={f.questions} onChange={(e) => set('questions', e.target.value)} />}
        </Field>
        <Field
          label="Status"
          {...errors.field('status')}
          hint="A draft is never used by the assistant nor shown in the widget."
        >
          {(p) => (
            <select {...p} value={f.status} onChange={(e) => set('status', e.target.value as ArticleStatus)}>
              <option value="published">Published</option>
              <option value="draft">Draft</option>
            </select>
          )}
        </Field>
        {initial && (
          <p className="muted small">
            Answers given from it: {initial.hits}. Created <When iso={initial.createdAt} />, updated{' '}
            <When iso={initial.updatedAt} />.
          </p>
        )}
        <FormError error={save.error} fields={errors} />
        {(save.isSuccess || (created && save.isIdle)) && (
          <p role="status" className="success">
            Saved. The next chat message uses it.
          </p>
        )}
        {!readOnly && (
          <div className="row">
            <button type="submit" className="primary" disabled={save.isPending}>
              Save the article
            </button>
            {id && (
              <Confirm
                trigger={
                  <button type="button" className="danger">
                    Delete
                  </button>
                }
                title="Delete this article?"
                danger
                body={<p>The assistant stops answering from it at once.</p>}
                confirmLabel="Delete the article"
                onConfirm={remove}
              />
            )}
          </div>
        )}
      </fieldset>
    </form>
  );
}
