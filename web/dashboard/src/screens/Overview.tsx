import { lazy, Suspense, useState } from 'react';
import { useQuery } from '@tanstack/react-query';
import { Link } from 'react-router';
import { ok } from '../api/client.ts';
import type { Stats } from '../api/types.ts';
import { useApp } from '../context.tsx';
import { usePollInterval } from '../live.tsx';
import { Badge, counted, Empty, ErrorState, Field, Loading, Page, percent, When } from '../ui/index.tsx';
import { daysAgo, DEFAULT_DAYS, statsQuery } from './overview-query.ts';

const DailyChart = lazy(() => import('../ui/Chart.tsx'));

const PRESETS = [
  { days: 7, label: 'Last 7 days' },
  { days: 30, label: 'Last 30 days' },
  { days: 90, label: 'Last 90 days' },
];

export default function Overview() {
  const { api } = useApp();
  const [preset, setPreset] = useState(String(DEFAULT_DAYS));
  const [custom, setCustom] = useState({ from: daysAgo(29), to: daysAgo(0) });
  const period = preset === 'custom' ? custom : { from: daysAgo(Number(preset) - 1), to: daysAgo(0) };
  const stats = useQuery({ ...statsQuery(api, period), refetchInterval: usePollInterval(30_000) });

  return (
    <Page title="Overview">
      <form className="filters" onSubmit={(e) => e.preventDefault()} aria-label="Choose the period">
        <Field label="Period">
          {(p) => (
            <select {...p} value={preset} onChange={(e) => setPreset(e.target.value)}>
              {PRESETS.map((o) => (
                <option key={o.days} value={String(o.days)}>
                  {o.label}
                </option>
              ))}
              <option value="custom">Custom dates</option>
            </select>
          )}
        </Field>
        {preset === 'custom' && (
          <>
            <Field label="From">
              {(p) => (
                <input
                  {...p}
                  type="date"
                  value={custom.from}
                  max={custom.to}
                  onChange={(e) => setCustom((c) => ({ ...c, from: e.target.value }))}
                />
              )}
            </Field>
            <Field label="To">
              {(p) => (
                <input
                  {...p}
                  type="date"
                  value={custom.to}
                  min={custom.from}
                  onChange={(e) => setCustom((c) => ({ ...c, to: e.target.value }))}
                />
              )}
            </Field>
          </>
        )}
      </form>
      {stats.isPending ? (
        <Loading />
      ) : stats.isError ? (
        <ErrorState error={stats.error} retry={() => void stats.refetch()} />
      ) : (
        <StatsView stats={stats.data} />
      )}
    </Page>
  );
}

function StatsView({ stats }: { stats: Stats }) {
  const k = stats.kpis;
  const kpis: [string, string][] = [
    ['Conversations', String(k.conversations)],
    ['Customer messages', String(k.messages)],
    ['Escalations', String(k.escalations)],
    ['Escalation rate', percent(k.escalationRate)],
    ['Resolved by the assistant', `${percent(k.assistantResolutionRate)} (${k.assistantResolutions})`],
    ['Open tickets', String(k.openTickets)],
    ['Average confidence', percent(k.avgConfidence)],
    ['Fallback rate', percent(k.fallbackRate)],
    ['Answered from articles', String(k.knowledgeAnswers)],
    ['First response', duration(k.avgFirstResponseSeconds)],
    ['Time to resolve', duration(k.avgResolutionSeconds)],
    [
      'Satisfaction',
      k.csat == null ? '—' : `${k.csat.toFixed(1)} / 5 (${k.ratings} ${k.ratings === 1 ? 'rating' : 'ratings'})`,
    ],
  ];
  const maxIntent = Math.max(1, ...stats.topIntents.map((t) => t.count));
  const maxArticle = Math.max(1, ...stats.topArticles.map((a) => a.count));

  return (
    <>
      <section aria-labelledby="kpi-h">
        <h2 id="kpi-h" className="visually-hidden">
          Key figures, {stats.period.from} to {stats.period.to}
        </h2>
        <dl className="kpis">
          {kpis.map(([label, value]) => (
            <div key={label} className="kpi">
              <dt>{label}</dt>
              <dd>{value}</dd>
            </div>
          ))}
        </dl>
      </section>
      <div className="grid-2">
        <section className="card" aria-labelledby="daily-h">
          <h2 id="daily-h">Day by day</h2>
          {stats.series.length > 0 ? (
            <>
              <Suspense fallback={<Loading label="Drawing the chart…" />}>
                <DailyChart
                  days={stats.series}
                  title={`Conversations, customer messages, escalations and fallbacks per day from ${stats.period.from} to ${stats.period.to}`}
                />
              </Suspense>
              <details>
                <summary>Show as a table</summary>
                <div className="table-scroll">
                  <table>
                    <thead>
                      <tr>
                        <th scope="col">Date</th>
                        <th scope="col">Conversations</th>
                        <th scope="col">Customer messages</th>
                        <th scope="col">Escalations</th>
                        <th scope="col">Fallbacks</th>
                      </tr>
                    </thead>
                    <tbody>
                      {stats.series.map((d) => (
                        <tr key={d.date}>
                          <th scope="row">{d.date}</th>
                          <td>{d.conversations}</td>
                          <td>{d.messages}</td>
                          <td>{d.escalations}</td>
                          <td>{d.fallbacks}</td>
                        </tr>
                      ))}
                    </tbody>
                  </table>
                </div>
              </details>
            </>
          ) : (
            <Empty>No day in this period.</Empty>
          )}
        </section>
        <div className="stack">
          <section className="card" aria-labelledby="intents-h">
            <h2 id="intents-h">Top intents</h2>
            {stats.topIntents.length === 0 ? (
              <Empty>No intent was detected in this period.</Empty>
            ) : (
              <ol className="bars">
                {stats.topIntents.map((t) => (
                  <li key={t.intent}>
                    <span className="bar-label">{t.intent}</span>
                    <span className="bar" style={{ width: `${(t.count / maxIntent) * 100}%` }} aria-hidden="true" />
                    <span className="bar-value">{t.count}</span>
                  </li>
                ))}
              </ol>
            )}
          </section>
          <section className="card" aria-labelledby="articles-h">
            <h2 id="articles-h">Top help articles</h2>
            {stats.topArticles.length === 0 ? (
              <Empty>No message was answered from a help article in this period.</Empty>
            ) : (
              <ol className="bars titled">
                {stats.topArticles.map((a) => (
                  <li key={a.articleId}>
                    <Link to={`/knowledge/${a.articleId}`} className="bar-label">
                      {a.title}
                    </Link>
                    <span className="bar" style={{ width: `${(a.count / maxArticle) * 100}%` }} aria-hidden="true" />
                    <span className="bar-value">{a.count}</span>
                  </li>
                ))}
              </ol>
            )}
          </section>
        </div>
      </div>
      <LowRatings />
      <section className="card" aria-labelledby="recent-h">
        <h2 id="recent-h">Recent conversations</h2>
        {stats.recentConversations.length === 0 ? (
          <Empty>No conversation yet. Once the widget is on your site, conversations appear here.</Empty>
        ) : (
          <ul className="list">
            {stats.recentConversations.map((c) => (
              <li key={c.id}>
                <Link to={`/inbox/${c.id}`} className="list-main">
                  {c.title}
                </Link>
                <span className="list-meta">
                  <Badge value={c.stage ?? c.status} /> {counted(c.messageCount, 'message')} ·{' '}
                  <When iso={c.updatedAt} />
                </span>
              </li>
            ))}
          </ul>
        )}
      </section>
    </>
  );
}

/** Scores at or under this are listed for the team to read (the same line the Unanswered screen marks by). */
const LOW_RATING = 2;
const RATED_WINDOW = 100;

/** Recent low ratings with what the customer wrote: among the latest conversations of the inbox, newest first. */
function LowRatings() {
  const { api } = useApp();
  const recent = useQuery({
    queryKey: ['conversations', 'low-ratings'],
    queryFn: () => ok(api.GET('/api/v1/admin/conversations', { params: { query: { limit: String(RATED_WINDOW) } } })),
    refetchInterval: usePollInterval(30_000),
  });
  const low = (recent.data?.items ?? [])
    .filter((c) => c.rating && c.rating.score <= LOW_RATING)
    .sort((a, b) => (a.rating!.createdAt < b.rating!.createdAt ? 1 : -1))
    .slice(0, 10);
  return (
    <section className="card" aria-labelledby="low-ratings-h">
      <h2 id="low-ratings-h">Recent low ratings</h2>
      {recent.isPending ? (
        <Loading />
      ) : recent.isError ? (
        <ErrorState error={recent.error} retry={() => void recent.refetch()} />
      ) : low.length === 0 ? (
        <Empty>
          No rating of {LOW_RATING} or less among the latest {RATED_WINDOW} conversations.
        </Empty>
      ) : (
        <ul className="list">
          {low.map((c) => (
            <li key={c.id}>
              <Link to={`/inbox/${c.id}`} className="list-main">
                {c.title}
              </Link>
              <span className="list-meta">
                Rated {c.rating!.score}/5 · <When iso={c.rating!.createdAt} />
                {c.ticket ? ` · ticket #${c.ticket.number}` : ''}
              </span>
              <span className="list-meta">{c.rating!.comment ? `“${c.rating!.comment}”` : 'No comment.'}</span>
            </li>
          ))}
        </ul>
      )}
    </section>
  );
}

/** An average time, in the unit a person reads at a glance. */
function duration(seconds: number | null): string {
  if (seconds == null) return '—';
  if (seconds < 60) return `${Math.round(seconds)} s`;
  if (seconds < 3600) return `${Math.round(seconds / 60)} min`;
  if (seconds < 86_400) return `${(seconds / 3600).toFixed(1)} h`;
  return `${(seconds / 86_400).toFixed(1)} days`;
}
