import { useState, type FormEvent } from 'react';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { Link, useNavigate, useParams } from 'react-router';
import { deleteArticle, getArticle, listArticles, saveArticle, type Article } from '../api/pending.ts';
import { ApiError } from '../api/problem.ts';
import { useApp, useMember } from '../context.tsx';
import { atLeast } from '../roles.ts';
import { Badge, Confirm, Empty, ErrorState, Field, fieldErrorsOf, FormError, Loading, Page, Pager, usePager, When } from '../ui/index.tsx';

// Built against CONTRACT section 11; the gateway's own 404 means the routes are not deployed yet.
const notDeployed = (e: unknown) => e instanceof ApiError && e.status === 404 && !e.problem.code;

export default function Knowledge() {
  const { id } = useParams();
  return id ? <ArticleEditor key={id} id={id === 'new' ? null : id} /> : <ArticleList />;
}

function ArticleList() {
  const { api } = useApp();
  const member = useMember();
  const [q, setQ] = useState('');
  const [search, setSearch] = useState('');
  const pager = usePager(search);
  const list = useQuery({ queryKey: ['articles', search, pager.cursor], queryFn: () => listArticles(api, { q: search, ...(pager.cursor ? { cursor: pager.cursor } : {}) }) });
  return (
    <Page title="Knowledge" actions={atLeast(member.role, 'admin') ? <Link className="button primary" to="/knowledge/new">New article</Link> : undefined}>
      <p className="lead">Help articles the assistant answers from when no intent fits.</p>
      <form className="inline-form" aria-label="Search articles" onSubmit={(e) => { e.preventDefault(); setSearch(q.trim()); }}>
        <Field label="Search articles">{(p) => <input {...p} type="search" value={q} maxLength={200} onChange={(e) => setQ(e.target.value)} />}</Field>
        <button type="submit">Search</button>
      </form>
      {list.isPending ? <Loading /> : list.isError ? (
        notDeployed(list.error) ? <Empty>The knowledge base is not available on this service yet.</Empty> : <ErrorState error={list.error} retry={() => void list.refetch()} />
      ) : list.data.items.length === 0 ? <Empty>{search ? 'No article matches.' : 'No article yet.'}</Empty> : (
        <div className="card">
          <table className="table">
            <thead><tr><th scope="col">Title</th><th scope="col">Status</th><th scope="col">Hits</th><th scope="col">Updated</th></tr></thead>
            <tbody>
              {list.data.items.map((a) => (
                <tr key={a.id}><th scope="row"><Link to={`/knowledge/${a.id}`}>{a.title}</Link></th><td><Badge value={a.status} /></td><td>{a.hits}</td><td><When iso={a.updatedAt} /></td></tr>
              ))}
            </tbody>
          </table>
          <Pager pager={pager} nextCursor={list.data.nextCursor} label="Article" />
        </div>
      )}
    </Page>
  );
}

function ArticleEditor({ id }: { id: string | null }) {
  const { api } = useApp();
  const member = useMember();
  const article = useQuery({ queryKey: ['article', id], queryFn: () => getArticle(api, id!), enabled: id !== null });
  return (
    <Page title={id === null ? 'New article' : article.data?.title ?? 'Article'}>
      <p><Link to="/knowledge">All articles</Link></p>
      {id !== null && article.isPending ? <Loading /> : id !== null && article.isError ? <ErrorState error={article.error} /> : (
        <ArticleForm id={id} initial={article.data ?? null} readOnly={!atLeast(member.role, 'admin')} />
      )}
    </Page>
  );
}

function ArticleForm({ id, initial, readOnly }: { id: string | null; initial: Article | null; readOnly: boolean }) {
  const { api } = useApp();
  const qc = useQueryClient();
  const navigate = useNavigate();
  const [f, setF] = useState({
    title: initial?.title ?? '', body: initial?.body ?? '', url: initial?.url ?? '', tags: (initial?.tags ?? []).join(', '),
    questions: (initial?.questions ?? []).join('\n'), status: initial?.status ?? 'published',
  });
  const set = <K extends keyof typeof f>(k: K, v: (typeof f)[K]) => setF((x) => ({ ...x, [k]: v }));
  const save = useMutation({
    mutationFn: () => saveArticle(api, id, {
      title: f.title, body: f.body, ...(f.url.trim() ? { url: f.url.trim() } : {}), status: f.status,
      tags: f.tags.split(',').map((s) => s.trim()).filter(Boolean), questions: f.questions.split('\n').map((s) => s.trim()).filter(Boolean),
    }),
    onSuccess: (a) => { void qc.invalidateQueries({ queryKey: ['articles'] }); qc.setQueryData(['article', a.id], a); if (!id) navigate(`/knowledge/${a.id}`, { replace: true }); },
  });
  const errors = fieldErrorsOf(save.error);
  const err = (k: string) => Object.entries(errors).filter(([p]) => p === k || p.startsWith(`${k}.`)).map(([, m]) => m).join('; ') || undefined;
  const remove = async () => { await deleteArticle(api, id!); void qc.invalidateQueries({ queryKey: ['articles'] }); navigate('/knowledge'); };
  const submit = (e: FormEvent) => { e.preventDefault(); save.mutate(); };
  return (
    <form className="card form" onSubmit={submit} noValidate>
      <fieldset disabled={readOnly}>
        <Field label="Title" error={err('title')}>{(p) => <input {...p} value={f.title} maxLength={200} onChange={(e) => set('title', e.target.value)} />}</Field>
        <Field label="Body" error={err('body')} hint="Markdown.">{(p) => <textarea {...p} rows={12} value={f.body} onChange={(e) => set('body', e.target.value)} />}</Field>
        <Field label="Page URL" error={err('url')} hint="The article on your help centre (https).">{(p) => <input {...p} type="url" value={f.url} onChange={(e) => set('url', e.target.value)} />}</Field>
        <Field label="Tags" error={err('tags')} hint="Comma-separated.">{(p) => <input {...p} value={f.tags} onChange={(e) => set('tags', e.target.value)} />}</Field>
        <Field label="Other ways to ask" error={err('questions')} hint="One question per line.">{(p) => <textarea {...p} rows={4} value={f.questions} onChange={(e) => set('questions', e.target.value)} />}</Field>
        <Field label="Status" error={err('status')}>
          {(p) => <select {...p} value={f.status} onChange={(e) => set('status', e.target.value as 'published' | 'draft')}><option value="published">Published</option><option value="draft">Draft</option></select>}
        </Field>
        <FormError error={save.error} />
        {save.isSuccess && <p role="status" className="success">Saved.</p>}
        {!readOnly && (
          <div className="row">
            <button type="submit" className="primary" disabled={save.isPending}>Save the article</button>
            {id && <Confirm trigger={<button type="button" className="danger">Delete</button>} title="Delete this article?" danger body={<p>The assistant stops answering from it at once.</p>} confirmLabel="Delete" onConfirm={remove} />}
          </div>
        )}
      </fieldset>
    </form>
  );
}
