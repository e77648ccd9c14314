import { useId, useState } from 'react';
import { useQuery } from '@tanstack/react-query';
import { Link, useNavigate } from 'react-router';
import { ok, type Ok } from '../api/client.ts';
import { useApp, useMember } from '../context.tsx';
import { atLeast } from '../roles.ts';
import { Empty, ErrorState, Field, Loading, Page, percent, When } from '../ui/index.tsx';
import { daysAgo, DEFAULT_DAYS } from './overview-query.ts';
import { TargetPicker, TeachResult, taughtKey, useTeach, type Target, type Taught } from './Teach.tsx';

// What the assistant did not answer well (GET /nlu/unanswered): the period's fallbacks, unsure
// answers and messages of conversations rated 1 or 2, grouped by what they ask. Each group can be
// taught to its suggestion or any intent or article, marked as something nothing should answer,
// or turned into a draft article. A message taught leaves the list (until its example is taken back).

type Group = Ok<'/api/v1/admin/nlu/unanswered', 'get'>['groups'][number];
type Draft = { title: string; questions: string[] };

const PRESETS = [
  { days: 7, label: 'Last 7 days' },
  { days: 30, label: 'Last 30 days' },
  { days: 90, label: 'Last 90 days' },
];
/** An article's limits (title 200 characters, 20 questions of at most 300). */
const draftOf = (g: Group): Draft => ({
  title: [...g.label].slice(0, 200).join(''),
  questions: [...new Set(g.examples.map((e) => e.message.trim()))].filter((m) => m.length <= 300).slice(0, 20),
});

export default function Unanswered() {
  const { api } = useApp();
  const member = useMember();
  const admin = atLeast(member.role, 'admin');
  const [days, setDays] = useState(String(DEFAULT_DAYS));
  const period = { from: daysAgo(Number(days) - 1), to: daysAgo(0) };
  const [taught, setTaught] = useState<Taught | null>(null);
  const list = useQuery({
    queryKey: ['unanswered', period.from, period.to],
    queryFn: () => ok(api.GET('/api/v1/admin/nlu/unanswered', { params: { query: { ...period, limit: '50' } } })),
  });
  // Names for the suggestions: the intents (one list) and each suggested article.
  const intents = useQuery({ queryKey: ['intents'], queryFn: () => ok(api.GET('/api/v1/admin/intents')) });
  const intentName = (id: string) => intents.data?.items.find((i) => i.id === id)?.name;
  return (
    <Page title="Unanswered">
      <p className="lead">
        Customers' messages that got the fallback, an answer under 50 % confidence, or belong to a conversation rated 1
        or 2, grouped by what they ask.{' '}
        {admin
          ? 'Teach each group what should answer it: the next chat message uses it, and the messages leave this list.'
          : 'An admin can teach the assistant from here.'}
      </p>
      <form className="filters" onSubmit={(e) => e.preventDefault()} aria-label="Choose the period">
        <Field label="Period">
          {(p) => (
            <select {...p} value={days} onChange={(e) => setDays(e.target.value)}>
              {PRESETS.map((o) => (
                <option key={o.days} value={String(o.days)}>
                  {o.label}
                </option>
              ))}
            </select>
          )}
        </Field>
      </form>
      {taught && (
        <div className="card teach-banner">
          <TeachResult key={taughtKey(taught)} taught={taught} counted />
        </div>
      )}
      {list.isPending ? (
        <Loading />
      ) : list.isError ? (
        <ErrorState error={list.error} retry={() => void list.refetch()} />
      ) : list.data.groups.length === 0 ? (
        <Empty>
          Nothing unanswered in this period: every customer message got a confident answer, and no conversation was
          rated 1 or 2.
        </Empty>
      ) : (
        <>
          <p className="muted small">
            {list.data.groups.length === 1 ? 'One group' : `${list.data.groups.length} groups`}, the biggest first.
          </p>
          <ol className="groups">
            {list.data.groups.map((g) => (
              <li key={g.examples[0]?.messageId ?? g.label}>
                <GroupCard group={g} admin={admin} intentName={intentName} onTaught={setTaught} />
              </li>
            ))}
          </ol>
        </>
      )}
    </Page>
  );
}

function GroupCard({
  group: g,
  admin,
  intentName,
  onTaught,
}: {
  group: Group;
  admin: boolean;
  intentName: (id: string) => string | undefined;
  onTaught: (t: Taught) => void;
}) {
  const { api } = useApp();
  const id = useId();
  const navigate = useNavigate();
  const { teach } = useTeach();
  const [busy, setBusy] = useState(false);
  const suggested = g.suggestion && 'articleId' in g.suggestion ? g.suggestion.articleId : null;
  const article = useQuery({
    queryKey: ['article', suggested],
    queryFn: () => ok(api.GET('/api/v1/admin/articles/{id}', { params: { path: { id: suggested! } } })),
    enabled: suggested !== null,
  });
  const suggestion: { target: Target; label: string } | null = !g.suggestion
    ? null
    : 'intentId' in g.suggestion
      ? intentName(g.suggestion.intentId)
        ? { target: { intentId: g.suggestion.intentId }, label: intentName(g.suggestion.intentId)! }
        : null
      : article.data
        ? { target: { articleId: article.data.id }, label: article.data.title }
        : null;
  const messages = g.examples.map(({ message, conversationId, messageId }) => ({ message, conversationId, messageId }));
  const run = async (target: Target, label: string) => {
    setBusy(true);
    try {
      const r = await teach(messages, target, label);
      onTaught(r);
      if (r.error && r.created.length + r.existing.length === 0) throw r.error;
    } finally {
      setBusy(false);
    }
  };
  const more = g.count - g.examples.length;
  return (
    <section className="card group" aria-labelledby={`${id}-h`}>
      <div className="group-head">
        <h2 id={`${id}-h`}>“{g.label}”</h2>
        <span className="count">{g.count === 1 ? '1 message' : `${g.count} messages`}</span>
      </div>
      {suggestion && (
        <p className="small">
          Probably answered by{' '}
          {'intentId' in suggestion.target ? (
            <>
              the intent <strong>{suggestion.label}</strong>
            </>
          ) : (
            <>
              the article <strong>{suggestion.label}</strong>
            </>
          )}
          .
        </p>
      )}
      <ul className="group-examples" aria-label="Messages">
        {g.examples.map((e) => (
          <li key={e.messageId} className="group-example">
            <span className="ex-text">{e.message}</span>
            <span className="muted small">
              {' '}
              confidence {percent(e.confidence)} · <When iso={e.createdAt} /> ·{' '}
              <Link to={`/inbox/${e.conversationId}`}>
                Open the conversation<span className="visually-hidden">: {e.message}</span>
              </Link>
            </span>
          </li>
        ))}
      </ul>
      {more > 0 && (
        <p className="muted small">
          And {more} more like these; teaching uses the {g.examples.length} shown.
        </p>
      )}
      {admin && (
        <div className="row group-actions">
          {suggestion && (
            <button
              type="button"
              className="primary"
              disabled={busy}
              onClick={() => void run(suggestion.target, suggestion.label).catch(() => undefined)}
            >
              Teach to {suggestion.label}
            </button>
          )}
          <TargetPicker
            title="What should answer these messages?"
            messages={messages.map((m) => m.message)}
            onPick={run}
            trigger={
              <button type="button" disabled={busy}>
                Should have been…
              </button>
            }
          />
          <button type="button" disabled={busy} onClick={() => void run({ none: true }, '').catch(() => undefined)}>
            Nothing should answer these
          </button>
          <button type="button" onClick={() => navigate('/knowledge/new', { state: { draft: draftOf(g) } })}>
            Write an article
          </button>
        </div>
      )}
    </section>
  );
}
