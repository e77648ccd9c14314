import { useState, type FormEvent } from 'react';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { Link, useParams, useSearchParams } from 'react-router';
import { ok, type Body } from '../api/client.ts';
import { DELIVERY_STATUSES, type Delivery, type Integration } from '../api/types.ts';
import { useApp } from '../context.tsx';
import {
  Badge,
  Confirm,
  CopyButton,
  Empty,
  ErrorState,
  Field,
  FormError,
  label,
  Loading,
  Page,
  Pager,
  useFieldErrors,
  usePager,
  When,
  type FieldErrors,
} from '../ui/index.tsx';

// Integrations: webhooks, Slack and actions. The list creates, edits, re-activates and
// deletes them; /integrations/:id shows one with its deliveries, a test ping and redelivery, or
// an action with its recent calls.

type Input = Body<'/api/v1/admin/integrations', 'post'>;
const TYPES: Input['type'][] = ['webhook', 'slack', 'action'];
const str = (v: unknown) => (typeof v === 'string' ? v : '');
const eventsOf = (i: Integration) =>
  Array.isArray(i.config.events)
    ? (i.config.events as unknown[]).filter((e): e is string => typeof e === 'string')
    : [];

/** The same integration with another status: a PUT without credentials keeps the stored ones. */
const withStatus = (i: Integration, status: Integration['status']): Input => ({
  type: i.type,
  name: i.name,
  config: i.config,
  credentials: {},
  status,
});

function useIntegrations() {
  const { api } = useApp();
  return useQuery({ queryKey: ['integrations'], queryFn: () => ok(api.GET('/api/v1/admin/integrations')) });
}

function useSetStatus() {
  const { api } = useApp();
  const qc = useQueryClient();
  return useMutation({
    mutationFn: ({ i, status }: { i: Integration; status: Integration['status'] }) =>
      ok(api.PUT('/api/v1/admin/integrations/{id}', { params: { path: { id: i.id } }, body: withStatus(i, status) })),
    onSuccess: () => void qc.invalidateQueries({ queryKey: ['integrations'] }),
  });
}

export default function Integrations() {
  const { id } = useParams();
  return id ? <IntegrationDetail key={id} id={id} /> : <IntegrationList />;
}

function IntegrationList() {
  const { api } = useApp();
  const qc = useQueryClient();
  const list = useIntegrations();
  const setStatus = useSetStatus();
  const [editing, setEditing] = useState<Integration | 'new' | null>(null);
  const [created, setCreated] = useState<{ name: string; secret: string } | null>(null);
  const remove = async (id: string) => {
    await ok(api.DELETE('/api/v1/admin/integrations/{id}', { params: { path: { id } } }));
    void qc.invalidateQueries({ queryKey: ['integrations'] });
  };
  return (
    <Page
      title="Integrations"
      actions={
        editing ? undefined : (
          <button
            type="button"
            className="primary"
            onClick={() => {
              setCreated(null);
              setEditing('new');
            }}
          >
            New integration
          </button>
        )
      }
    >
      <p className="lead">
        Send events (new conversations, escalations, ticket changes) to your own systems, and let intents look things up
        in them (actions).
      </p>
      {created && <SecretOnce {...created} done={() => setCreated(null)} />}
      {editing && (
        <IntegrationForm
          key={editing === 'new' ? 'new' : editing.id}
          current={editing === 'new' ? null : editing}
          done={(saved) => {
            setEditing(null);
            // A secret the service made is in the 201 response only, in full (a masked one starts with ****).
            const secret = saved?.credentials.secret;
            if (editing === 'new' && saved && secret && !secret.startsWith('****'))
              setCreated({ name: saved.name, secret });
          }}
        />
      )}
      <FormError error={setStatus.error} />
      {list.isPending ? (
        <Loading />
      ) : list.isError ? (
        <ErrorState error={list.error} retry={() => void list.refetch()} />
      ) : list.data.items.length === 0 ? (
        <Empty>No integration yet.</Empty>
      ) : (
        <div className="card table-wrap">
          <table className="table">
            <thead>
              <tr>
                <th scope="col">Name</th>
                <th scope="col" className="wide-only">
                  Type
                </th>
                <th scope="col">Status</th>
                <th scope="col" className="wide-only">
                  Created
                </th>
                <th scope="col">
                  <span className="visually-hidden">Actions</span>
                </th>
              </tr>
            </thead>
            <tbody>
              {list.data.items.map((i) => (
                <tr key={i.id}>
                  <th scope="row">
                    <Link to={`/integrations/${encodeURIComponent(i.id)}`}>{i.name}</Link>
                  </th>
                  <td className="wide-only">{label(i.type)}</td>
                  <td>
                    <Badge value={i.status} />
                  </td>
                  <td className="wide-only">
                    <When iso={i.createdAt} />
                  </td>
                  <td className="actions">
                    <div className="row">
                      <Link className="button" to={`/integrations/${encodeURIComponent(i.id)}`}>
                        {i.type === 'action' ? 'Calls' : 'Deliveries'}
                        <span className="visually-hidden"> of {i.name}</span>
                      </Link>
                      {i.status === 'disabled' && (
                        <button
                          type="button"
                          disabled={setStatus.isPending}
                          onClick={() => setStatus.mutate({ i, status: 'active' })}
                        >
                          Set active<span className="visually-hidden"> {i.name}</span>
                        </button>
                      )}
                      <button
                        type="button"
                        onClick={() => {
                          setCreated(null);
                          setEditing(i);
                        }}
                      >
                        Edit<span className="visually-hidden"> {i.name}</span>
                      </button>
                      <Confirm
                        trigger={
                          <button type="button" className="danger">
                            Delete<span className="visually-hidden"> {i.name}</span>
                          </button>
                        }
                        title="Delete this integration?"
                        danger
                        body={<p>{i.name} receives no more events.</p>}
                        confirmLabel="Delete"
                        onConfirm={() => remove(i.id)}
                      />
                    </div>
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
    </Page>
  );
}

/** The signing secret the service generated, shown once, right after creation. */
function SecretOnce({ name, secret, done }: { name: string; secret: string; done: () => void }) {
  return (
    <section className="card secret-once" aria-labelledby="secret-h">
      <h2 id="secret-h">Signing secret of {name}</h2>
      <p>
        The service made this secret for the endpoint. It is shown <strong>only now</strong>: store it where your
        endpoint checks signatures (Standard Webhooks).
      </p>
      <p>
        <code className="key">{secret}</code>
      </p>
      <div className="row">
        <CopyButton text={secret} label="Copy the secret" />
        <button type="button" onClick={done}>
          I have stored it
        </button>
      </div>
    </section>
  );
}

type Saved = Integration;

type Fields = { type: Input['type']; name: string; url: string; timeoutMs: string; events: string; secret: string };

/** The body the API takes for each type. */
function bodyOf({ type, name, url, timeoutMs, events, secret }: Fields): Input {
  const list = events
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);
  // Empty secret fields keep the stored credentials on a replacement; on creation the
  // service makes a webhook's secret.
  return type === 'webhook'
    ? {
        type,
        name,
        config: { url, ...(list.length ? { events: list } : {}) },
        credentials: secret ? { secret } : {},
      }
    : type === 'action'
      ? { type, name, config: { url, timeoutMs: Number(timeoutMs) }, credentials: secret ? { secret } : {} }
      : { type, name, config: {}, credentials: url ? { webhookUrl: url } : {} };
}

/** The fields that depend on the type (timeout, events, signing secret) and, when editing, the status. */
function IntegrationOptions({
  type,
  current,
  masked,
  errors,
  timeoutMs,
  setTimeoutMs,
  events,
  setEvents,
  secret,
  setSecret,
  status,
  setStatus,
}: {
  type: Input['type'];
  current: Integration | null;
  masked: string | undefined;
  errors: FieldErrors;
  timeoutMs: string;
  setTimeoutMs: (v: string) => void;
  events: string;
  setEvents: (v: string) => void;
  secret: string;
  setSecret: (v: string) => void;
  status: Integration['status'];
  setStatus: (v: Integration['status']) => void;
}) {
  return (
    <>
      {type === 'action' && (
        <Field
          label="Timeout (ms)"
          {...errors.field('config.timeoutMs')}
          hint="500 to 10,000. Past it the customer gets the intent's failure response."
        >
          {(p) => (
            <input
              {...p}
              type="number"
              min={500}
              max={10000}
              step={100}
              value={timeoutMs}
              onChange={(e) => setTimeoutMs(e.target.value)}
            />
          )}
        </Field>
      )}
      {type === 'webhook' && (
        <Field
          label="Events"
          {...errors.field('config.events')}
          hint="Comma-separated event types; empty sends every event."
        >
          {(p) => (
            <input
              {...p}
              value={events}
              onChange={(e) => setEvents(e.target.value)}
              placeholder="conversation.escalated, ticket.updated"
            />
          )}
        </Field>
      )}
      {(type === 'webhook' || type === 'action') && (
        <Field
          label="Signing secret"
          {...errors.field('credentials.secret')}
          hint={
            current
              ? `Stored: ${masked ?? 'none'}. Leave empty to keep it; enter a new one to replace it.`
              : 'Optional: leave empty and the service makes one, shown once after creation. Or whsec_ followed by base64, as Standard Webhooks defines it.'
          }
        >
          {(p) => (
            <input
              {...p}
              type="password"
              autoComplete="off"
              value={secret}
              onChange={(e) => setSecret(e.target.value)}
            />
          )}
        </Field>
      )}
      {current && (
        <Field
          label="Status"
          {...errors.field('status')}
          hint="A disabled integration receives nothing. The service disables one after a 410 Gone or 5 days of failed deliveries."
        >
          {(p) => (
            <select {...p} value={status} onChange={(e) => setStatus(e.target.value as Integration['status'])}>
              <option value="active">Active</option>
              <option value="disabled">Disabled</option>
            </select>
          )}
        </Field>
      )}
    </>
  );
}

function IntegrationForm({ current, done }: { current: Integration | null; done: (saved?: Saved) => void }) {
  const { api } = useApp();
  const qc = useQueryClient();
  const [type, setType] = useState<Input['type']>(current?.type ?? 'webhook');
  const [name, setName] = useState(current?.name ?? '');
  const [url, setUrl] = useState(
    current?.type === 'webhook' || current?.type === 'action' ? str(current.config.url) : '',
  );
  const [timeoutMs, setTimeoutMs] = useState(
    current?.type === 'action' ? String(current.config.timeoutMs ?? 3000) : '3000',
  );
  const [events, setEvents] = useState(current ? eventsOf(current).join(', ') : '');
  const [secret, setSecret] = useState('');
  const [status, setStatus] = useState<Integration['status']>(current?.status ?? 'active');
  const save = useMutation({
    mutationFn: (): Promise<Saved> => {
      const body = bodyOf({ type, name, url, timeoutMs, events, secret });
      return current
        ? ok(
            api.PUT('/api/v1/admin/integrations/{id}', {
              params: { path: { id: current.id } },
              body: { ...body, status },
            }),
          )
        : ok(api.POST('/api/v1/admin/integrations', { body }));
    },
    onSuccess: (saved) => {
      void qc.invalidateQueries({ queryKey: ['integrations'] });
      done(saved);
    },
  });
  const errors = useFieldErrors(save.error, {
    type: 'Type',
    name: 'Name',
    'config.url': 'Endpoint URL',
    'credentials.webhookUrl': 'Slack incoming-webhook URL',
    'config.events': 'Events',
    'credentials.secret': 'Signing secret',
    status: 'Status',
    'config.timeoutMs': 'Timeout',
  });
  const submit = (e: FormEvent) => {
    e.preventDefault();
    save.mutate();
  };
  const signed = type === 'webhook' || type === 'action';
  const masked = current?.credentials[signed ? 'secret' : 'webhookUrl'];
  return (
    <form className="card form" onSubmit={submit} noValidate aria-labelledby="int-h">
      <h2 id="int-h">{current ? `Edit ${current.name}` : 'New integration'}</h2>
      <Field label="Type" {...errors.field('type')}>
        {(p) => (
          <select
            {...p}
            value={type}
            disabled={Boolean(current)}
            onChange={(e) => setType(e.target.value as Input['type'])}
          >
            {TYPES.map((t) => (
              <option key={t} value={t}>
                {label(t)}
              </option>
            ))}
          </select>
        )}
      </Field>
      <Field label="Name" {...errors.field('name')}>
        {(p) => <input {...p} value={name} onChange={(e) => setName(e.target.value)} maxLength={100} />}
      </Field>
      <Field
        label={signed ? 'Endpoint URL' : 'Slack incoming-webhook URL'}
        {...errors.field('config.url', 'credentials.webhookUrl')}
        hint={
          type === 'webhook'
            ? 'An https URL.'
            : type === 'action'
              ? 'An https URL of your system: intents that look something up POST to it, signed.'
              : current
                ? `Stored: ${masked ?? 'none'}. Leave empty to keep it; enter a new one to replace it.`
                : 'https://hooks.slack.com/…'
        }
      >
        {(p) => <input {...p} type="url" value={url} onChange={(e) => setUrl(e.target.value)} autoComplete="off" />}
      </Field>
      <IntegrationOptions
        {...{ type, current, masked, errors }}
        {...{ timeoutMs, setTimeoutMs, events, setEvents, secret, setSecret, status, setStatus }}
      />
      <FormError error={save.error} fields={errors} />
      <div className="row">
        <button type="submit" className="primary" disabled={save.isPending}>
          {current ? 'Save' : 'Create'}
        </button>
        <button type="button" onClick={() => done()}>
          Cancel
        </button>
      </div>
    </form>
  );
}

function IntegrationDetail({ id }: { id: string }) {
  const list = useIntegrations();
  const setStatus = useSetStatus();
  const integration = list.data?.items.find((i) => i.id === id);
  return (
    <Page title={integration ? `Integration ${integration.name}` : 'Integration'}>
      <p>
        <Link to="/integrations">All integrations</Link>
      </p>
      {list.isPending ? (
        <Loading />
      ) : list.isError ? (
        <ErrorState error={list.error} retry={() => void list.refetch()} />
      ) : !integration ? (
        <Empty>This integration does not exist, or it was deleted.</Empty>
      ) : (
        <>
          <section className="card" aria-labelledby="int-details-h">
            <h2 id="int-details-h">Details</h2>
            <dl className="facts">
              <div>
                <dt>Type</dt>
                <dd>{label(integration.type)}</dd>
              </div>
              <div>
                <dt>Status</dt>
                <dd className="row">
                  <Badge value={integration.status} />
                  {integration.status === 'disabled' && (
                    <button
                      type="button"
                      disabled={setStatus.isPending}
                      onClick={() => setStatus.mutate({ i: integration, status: 'active' })}
                    >
                      Set active
                    </button>
                  )}
                </dd>
              </div>
              {(integration.type === 'webhook' || integration.type === 'action') && (
                <div>
                  <dt>Endpoint</dt>
                  <dd className="break">{str(integration.config.url)}</dd>
                </div>
              )}
              {integration.type === 'action' && (
                <div>
                  <dt>Timeout</dt>
                  <dd>{String(integration.config.timeoutMs ?? 3000)} ms</dd>
                </div>
              )}
              {integration.type === 'webhook' && (
                <div>
                  <dt>Events</dt>
                  <dd>{eventsOf(integration).join(', ') || 'every event'}</dd>
                </div>
              )}
              <div>
                <dt>Created</dt>
                <dd>
                  <When iso={integration.createdAt} />
                </dd>
              </div>
            </dl>
            <FormError error={setStatus.error} />
            {integration.status === 'disabled' && (
              <p className="notice">Disabled: it receives no event until it is set active again.</p>
            )}
          </section>
          {integration.type === 'action' ? (
            <ActionCalls integration={integration} />
          ) : (
            <Deliveries integration={integration} />
          )}
        </>
      )}
    </Page>
  );
}

function Deliveries({ integration }: { integration: Integration }) {
  const { api } = useApp();
  const qc = useQueryClient();
  const [params, setParams] = useSearchParams();
  const status = DELIVERY_STATUSES.find((s) => s === params.get('status'));
  const pager = usePager(status ?? '');
  const path = { id: integration.id };
  const list = useQuery({
    queryKey: ['deliveries', integration.id, status, pager.cursor],
    queryFn: () =>
      ok(
        api.GET('/api/v1/admin/integrations/{id}/deliveries', {
          params: { path, query: { ...(status ? { status } : {}), ...(pager.cursor ? { cursor: pager.cursor } : {}) } },
        }),
      ),
    // While a delivery is on its way, its outcome is read again every few seconds.
    refetchInterval: (q) => (q.state.data?.items.some((d) => d.status === 'pending') ? 3000 : false),
  });
  const refresh = () => void qc.invalidateQueries({ queryKey: ['deliveries', integration.id] });
  const test = useMutation({
    mutationFn: () => ok(api.POST('/api/v1/admin/integrations/{id}/test', { params: { path } })),
    onSuccess: refresh,
  });
  const redeliver = useMutation({
    mutationFn: (d: Delivery) =>
      ok(
        api.POST('/api/v1/admin/integrations/{id}/deliveries/{deliveryId}/redeliver', {
          params: { path: { ...path, deliveryId: d.id } },
        }),
      ),
    onSuccess: refresh,
  });
  return (
    <section className="card" aria-labelledby="deliveries-h">
      <div className="section-head">
        <h2 id="deliveries-h">Deliveries</h2>
        <div className="row">
          <button type="button" onClick={refresh}>
            Refresh
          </button>
          <button
            type="button"
            className="primary"
            disabled={test.isPending || integration.status === 'disabled'}
            onClick={() => test.mutate()}
          >
            Send test
          </button>
        </div>
      </div>
      <p className="muted small">
        Each event sent to this integration, newest first, kept 30 days. A failed attempt is retried after 5 s, 5 min,
        30 min, 2 h, 5 h, 10 h and 10 h.
      </p>
      {test.data && 'delivery' in test.data && (
        <p role="status" className="success">
          A test ping was queued (event {test.data.delivery.eventId}).
        </p>
      )}
      {redeliver.data && (
        <p role="status" className="success">
          Queued again with the same webhook-id: {redeliver.data.delivery.eventType}.
        </p>
      )}
      <FormError error={test.error ?? redeliver.error} />
      <form className="filters" aria-label="Delivery filters" onSubmit={(e) => e.preventDefault()}>
        <Field label="Delivery status">
          {(p) => (
            <select
              {...p}
              value={status ?? ''}
              onChange={(e) => setParams(e.target.value ? { status: e.target.value } : {})}
            >
              <option value="">All</option>
              {DELIVERY_STATUSES.map((s) => (
                <option key={s} value={s}>
                  {label(s)}
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
        <Empty>{status ? `No ${status} delivery.` : 'No delivery yet. Send a test to try the endpoint.'}</Empty>
      ) : (
        <>
          <ul className="deliveries">
            {list.data.items.map((d) => (
              <li key={d.id} className="delivery">
                <div className="delivery-head">
                  <strong>{d.eventType}</strong>
                  <Badge value={d.status} />
                  <span className="muted small">
                    created <When iso={d.createdAt} seconds />
                  </span>
                  <button
                    type="button"
                    className="redeliver"
                    disabled={redeliver.isPending}
                    onClick={() => redeliver.mutate(d)}
                  >
                    Redeliver
                    <span className="visually-hidden">
                      {' '}
                      {d.eventType} of <When iso={d.createdAt} />
                    </span>
                  </button>
                </div>
                <dl className="delivery-facts">
                  <div>
                    <dt>Attempts</dt>
                    <dd>{d.attempts}</dd>
                  </div>
                  <div>
                    <dt>Last response</dt>
                    <dd>{d.lastResponseStatus ?? '—'}</dd>
                  </div>
                  <div>
                    <dt>Last attempt</dt>
                    <dd>{d.lastAttemptAt ? <When iso={d.lastAttemptAt} seconds /> : '—'}</dd>
                  </div>
                  <div>
                    <dt>Next attempt</dt>
                    <dd>{d.nextAttemptAt ? <When iso={d.nextAttemptAt} seconds /> : '—'}</dd>
                  </div>
                  <div>
                    <dt>Event id</dt>
                    <dd>
                      <code className="break">{d.eventId}</code>
                    </dd>
                  </div>
                </dl>
                {d.lastError && (
                  <p className="delivery-error">
                    <span className="label">Last error: </span>
                    {d.lastError}
                  </p>
                )}
              </li>
            ))}
          </ul>
          <Pager pager={pager} nextCursor={list.data.nextCursor} label="Delivery" />
        </>
      )}
    </section>
  );
}

/** An action's recent calls from customers' messages: how it went and how long it took. */
function ActionCalls({ integration }: { integration: Integration }) {
  const { api } = useApp();
  const calls = useQuery({
    queryKey: ['action-calls', integration.id],
    queryFn: () => ok(api.GET('/api/v1/admin/integrations/{id}/calls', { params: { path: { id: integration.id } } })),
  });
  return (
    <section className="card" aria-labelledby="calls-h">
      <div className="section-head">
        <h2 id="calls-h">Recent calls</h2>
        <div className="row">
          <button type="button" onClick={() => void calls.refetch()}>
            Refresh
          </button>
        </div>
      </div>
      <p className="muted small">
        The last 20 lookups that customers' messages made, newest first, kept 7 days. Try it from an intent that looks
        something up (Intents).
      </p>
      {calls.isPending ? (
        <Loading />
      ) : calls.isError ? (
        <ErrorState error={calls.error} retry={() => void calls.refetch()} />
      ) : calls.data.items.length === 0 ? (
        <Empty>No call yet.</Empty>
      ) : (
        <div className="table-wrap">
          <table className="table">
            <thead>
              <tr>
                <th scope="col">When</th>
                <th scope="col">Intent</th>
                <th scope="col">Status</th>
                <th scope="col">Latency</th>
                <th scope="col" className="wide-only">
                  Answer
                </th>
              </tr>
            </thead>
            <tbody>
              {calls.data.items.map((c) => (
                <tr key={c.id}>
                  <td>
                    <When iso={c.createdAt} seconds />
                  </td>
                  <td>{c.intent}</td>
                  <td>
                    <Badge value={c.status} kind={c.status === 'ok' ? 'succeeded' : 'failed'} />
                  </td>
                  <td>{c.latencyMs} ms</td>
                  <td className="wide-only">{c.error ?? (c.httpStatus === null ? '—' : `HTTP ${c.httpStatus}`)}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
    </section>
  );
}
