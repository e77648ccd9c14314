import { useDeferredValue, useId, useState, type ReactNode } from 'react';
import * as Dialog from '@radix-ui/react-dialog';
import { keepPreviousData, useQuery, useQueryClient } from '@tanstack/react-query';
import { ok, type Api, type Body, type Ok } from '../api/client.ts';
import { ApiError, describeError, toApiError } from '../api/problem.ts';
import { useApp } from '../context.tsx';
import { Empty, ErrorState, Field, FormError, Loading, RequestId } from '../ui/index.tsx';

// Teaching the assistant what should have answered a customer's message (POST /nlu/examples):
// the picker of an intent, an article or "nothing", the result with its undo, used beside every
// assistant reply of a conversation (Inbox) and on each group of the Unanswered screen.

export type Target = Body<'/api/v1/admin/nlu/examples', 'post'>['target'];
export type Example = Ok<'/api/v1/admin/nlu/examples', 'post'>;
/** A customer's message as the teaching route takes it. */
export interface CustomerMessage {
  message: string;
  conversationId: string;
  messageId: string;
}
/** What one action taught: the examples it created (undo takes them back) and the ones already there. */
export interface Taught {
  target: Target;
  targetLabel: string;
  created: Example[];
  existing: Example[];
  total: number;
  error: unknown;
  /** Shown from the examples list (taught before this page was opened), not by an action here. */
  earlier?: boolean;
}

const NONE_LABEL = 'nothing (the fallback)';

async function teachOne(api: Api, body: Body<'/api/v1/admin/nlu/examples', 'post'>) {
  const r = await api.POST('/api/v1/admin/nlu/examples', { body });
  if (!r.response.ok) throw toApiError(r.response, r.error);
  return { example: r.data as Example, created: r.response.status === 201 };
}

/** Teaches the messages one after the other; stops at the first refusal and says how far it got. */
export function useTeach() {
  const { api } = useApp();
  const qc = useQueryClient();
  const refresh = () => {
    for (const key of ['unanswered', 'nlu-examples', 'intents', 'intent', 'articles', 'article', 'nlu-parse'])
      void qc.invalidateQueries({ queryKey: [key] });
  };
  return {
    async teach(messages: CustomerMessage[], target: Target, targetLabel: string): Promise<Taught> {
      const out: Taught = { target, targetLabel, created: [], existing: [], total: messages.length, error: null };
      for (const m of messages) {
        try {
          const r = await teachOne(api, {
            message: m.message,
            target,
            conversationId: m.conversationId,
            messageId: m.messageId,
          });
          (r.created ? out.created : out.existing).push(r.example);
        } catch (e) {
          out.error = e;
          break;
        }
      }
      refresh();
      return out;
    },
    /** Takes back the examples given; an example already gone is fine. */
    async undo(examples: Example[]) {
      try {
        for (const e of examples) {
          const r = await api.DELETE('/api/v1/admin/nlu/examples/{id}', { params: { path: { id: e.id } } });
          if (!r.response.ok && r.response.status !== 404) throw toApiError(r.response, r.error);
        }
      } finally {
        refresh();
      }
    },
  };
}

export const targetText = (t: Target, label: string) =>
  'none' in t ? NONE_LABEL : 'intentId' in t ? `the intent ${label}` : `the article “${label}”`;

/** "Should have been…": a dialog to pick an intent, an article or nothing; the pick is the second click. */
export function TargetPicker({
  trigger,
  messages,
  title,
  onPick,
}: {
  trigger: ReactNode;
  messages: string[];
  title: string;
  onPick: (target: Target, label: string) => Promise<unknown>;
}) {
  const [open, setOpen] = useState(false);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>(null);
  const pick = async (target: Target, label: string) => {
    setBusy(true);
    setError(null);
    try {
      await onPick(target, label);
      setOpen(false);
    } catch (e) {
      setError(e);
    } finally {
      setBusy(false);
    }
  };
  return (
    <Dialog.Root
      open={open}
      onOpenChange={(o) => {
        setOpen(o);
        setError(null);
      }}
    >
      <Dialog.Trigger asChild>{trigger}</Dialog.Trigger>
      <Dialog.Portal>
        <Dialog.Overlay className="dialog-overlay" />
        <Dialog.Content className="dialog teach-dialog">
          <Dialog.Title>{title}</Dialog.Title>
          <Dialog.Description asChild>
            <div>
              <p className="muted small">
                {messages.length === 1
                  ? 'The customer wrote:'
                  : `${messages.length} messages the customers wrote, for example:`}
              </p>
              <ul className="teach-quotes">
                {[...new Set(messages)].slice(0, 3).map((m) => (
                  <li key={m}>{m}</li>
                ))}
              </ul>
            </div>
          </Dialog.Description>
          {open && <TargetChoices query={messages[0] ?? ''} busy={busy} onPick={(t, l) => void pick(t, l)} />}
          <FormError error={error} />
          <div className="dialog-actions">
            <Dialog.Close asChild>
              <button type="button">Cancel</button>
            </Dialog.Close>
          </div>
        </Dialog.Content>
      </Dialog.Portal>
    </Dialog.Root>
  );
}

function TargetChoices({
  query,
  busy,
  onPick,
}: {
  query: string;
  busy: boolean;
  onPick: (t: Target, label: string) => void;
}) {
  const { api } = useApp();
  const id = useId();
  const [filter, setFilter] = useState('');
  const find = useDeferredValue(filter.trim());
  const intents = useQuery({ queryKey: ['intents'], queryFn: () => ok(api.GET('/api/v1/admin/intents')) });
  // The assistant's own ranking for the customer's message: what it would have chosen comes first.
  const message = query.slice(0, 2000).trim();
  const ranked = useQuery({
    queryKey: ['nlu-parse', message],
    enabled: message !== '',
    queryFn: () => ok(api.POST('/api/v1/admin/nlu/parse', { body: { message } })),
  });
  const order = new Map((ranked.data?.candidates.intents ?? []).map((c, k) => [c.id, k]));
  const rank = (id: string) => order.get(id) ?? order.size;
  // Articles ranked as the assistant would rank them for the customer's message (or the filter).
  const q = (find || query).slice(0, 200).trim();
  const articles = useQuery({
    queryKey: ['articles', 'teach', q],
    queryFn: async () => {
      const page = (query: string) =>
        ok(
          api.GET('/api/v1/admin/articles', {
            params: { query: { status: 'published', limit: '8', ...(query ? { q: query } : {}) } },
          }),
        );
      const ranked = await page(q);
      // Nothing shares a word with the customer's message: the newest articles, to pick from all the same.
      return ranked.items.length === 0 && q && !find ? page('') : ranked;
    },
    placeholderData: keepPreviousData,
  });
  const shownIntents = (intents.data?.items ?? [])
    .filter(
      (i) =>
        !find ||
        i.name.toLowerCase().includes(find.toLowerCase()) ||
        i.description.toLowerCase().includes(find.toLowerCase()),
    )
    .sort((a, b) => Number(b.enabled) - Number(a.enabled) || rank(a.id) - rank(b.id) || a.name.localeCompare(b.name));
  // Without a filter, the articles the assistant ranked for the message, in its order; else the search's.
  const rankedArticles = ranked.data?.candidates.articles ?? [];
  const shownArticles =
    !find && rankedArticles.length > 0
      ? rankedArticles.map((a) => ({ id: a.articleId, title: a.title }))
      : (articles.data?.items ?? []);
  return (
    <div className="teach-choices">
      <button type="button" className="teach-none" disabled={busy} onClick={() => onPick({ none: true }, NONE_LABEL)}>
        Nothing should answer this
      </button>
      <Field label="Find an intent or article">
        {(p) => (
          <input
            {...p}
            type="search"
            value={filter}
            maxLength={200}
            onChange={(e) => setFilter(e.target.value)}
            autoComplete="off"
          />
        )}
      </Field>
      <section aria-labelledby={`${id}-i`}>
        <h3 id={`${id}-i`}>Intents</h3>
        {intents.isPending ? (
          <Loading />
        ) : intents.isError ? (
          <ErrorState error={intents.error} retry={() => void intents.refetch()} />
        ) : shownIntents.length === 0 ? (
          <Empty>No intent matches.</Empty>
        ) : (
          <ul className="choice-list">
            {shownIntents.map((i) => (
              <li key={i.id}>
                <button type="button" disabled={busy} onClick={() => onPick({ intentId: i.id }, i.name)}>
                  {i.name}
                  {!i.enabled && <span className="muted small"> (disabled)</span>}
                </button>
              </li>
            ))}
          </ul>
        )}
      </section>
      <section aria-labelledby={`${id}-a`}>
        <h3 id={`${id}-a`}>Help articles</h3>
        {articles.isPending ? (
          <Loading />
        ) : articles.isError ? (
          <ErrorState error={articles.error} retry={() => void articles.refetch()} />
        ) : shownArticles.length === 0 ? (
          <Empty>{find ? 'No published article matches.' : 'No published article yet.'}</Empty>
        ) : (
          <ul className="choice-list">
            {shownArticles.map((a) => (
              <li key={a.id}>
                <button type="button" disabled={busy} onClick={() => onPick({ articleId: a.id }, a.title)}>
                  {a.title}
                </button>
              </li>
            ))}
          </ul>
        )}
      </section>
    </div>
  );
}

/** The name people know a target by: the intent's name or the article's title (undefined while it is read). */
export function useTargetLabel(target: Target | undefined): string | undefined {
  const { api } = useApp();
  const intentId = target && 'intentId' in target ? target.intentId : null;
  const articleId = target && 'articleId' in target ? target.articleId : null;
  const intents = useQuery({
    queryKey: ['intents'],
    queryFn: () => ok(api.GET('/api/v1/admin/intents')),
    enabled: intentId !== null,
  });
  const article = useQuery({
    queryKey: ['article', articleId],
    queryFn: () => ok(api.GET('/api/v1/admin/articles/{id}', { params: { path: { id: articleId! } } })),
    enabled: articleId !== null,
    retry: false,
  });
  if (!target) return undefined;
  if ('none' in target) return NONE_LABEL;
  if (intentId)
    return intents.data
      ? (intents.data.items.find((i) => i.id === intentId)?.name ?? 'a deleted intent')
      : intents.isError
        ? 'an intent'
        : undefined;
  return article.data?.title ?? (article.isError ? 'a deleted article' : undefined);
}

/** A key for a result: a new teaching shows a new result (its undo state starts afresh). */
export const taughtKey = (t: Taught) => t.created[0]?.id ?? t.existing[0]?.id ?? 'none';

/** What was taught, with Undo (created examples) or "Take it back" (examples that were there already). */
export function TeachResult({
  taught,
  counted = false,
  onUndone,
}: {
  taught: Taught;
  counted?: boolean;
  onUndone?: () => void;
}) {
  const { undo } = useTeach();
  const [state, setState] = useState<'shown' | 'busy' | 'undone'>('shown');
  const [error, setError] = useState<unknown>(null);
  const what = targetText(taught.target, taught.targetLabel);
  const back = taught.created.length > 0 ? taught.created : taught.existing;
  const run = async () => {
    setState('busy');
    setError(null);
    try {
      await undo(back);
      setState('undone');
      onUndone?.();
    } catch (e) {
      setError(e);
      setState('shown');
    }
  };
  const n = taught.created.length + taught.existing.length;
  // A group's result counts its messages, even one.
  const many = counted || taught.total > 1;
  const said =
    state === 'undone'
      ? many
        ? `Taken back: ${back.length === 1 ? 'one message' : `${back.length} messages`} no longer taught to ${what}.`
        : `Taken back: no longer taught to ${what}.`
      : taught.earlier
        ? `Taught earlier to ${what}.`
        : taught.created.length === 0 && n > 0
          ? many
            ? `Already taught: these messages were taught to ${what} before.`
            : `Already taught to ${what}.`
          : many
            ? `Taught ${taught.created.length === 1 ? 'one message' : `${taught.created.length} messages`} to ${what}${taught.existing.length ? ` (${taught.existing.length} already were)` : ''}. The next chat message uses it.`
            : n > 0
              ? `Taught to ${what}. The next chat message uses it.`
              : '';
  return (
    <div className="teach-result">
      {said && (
        <p role="status" className={state === 'undone' ? 'muted' : 'success'}>
          {said}
        </p>
      )}
      {taught.error != null && (
        <div className="error" role="alert">
          <p>
            {n > 0 ? `Stopped after ${n} of ${taught.total}: ` : 'Not taught: '}
            <ErrorText error={taught.error} />
          </p>
          <RequestId error={taught.error} />
        </div>
      )}
      {state !== 'undone' && back.length > 0 && (
        <button type="button" onClick={() => void run()} disabled={state === 'busy'}>
          {taught.created.length > 0 ? 'Undo' : 'Take it back'}
        </button>
      )}
      <FormError error={error} />
    </div>
  );
}

/** A refusal in words: the field errors' messages (a full intent names its limit), else the problem's. */
function ErrorText({ error }: { error: unknown }) {
  const fields = error instanceof ApiError ? (error.problem.errors ?? []) : [];
  return <>{fields.length ? fields.map((f) => f.message).join('; ') : describeError(error)}</>;
}
