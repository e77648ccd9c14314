import { useState, type FormEvent } from 'react';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { ok, type Body, type Ok } from '../api/client.ts';
import { useApp } from '../context.tsx';
import { Badge, Confirm, Empty, ErrorState, Field, fieldErrorsOf, FormError, label, Loading, Page, When } from '../ui/index.tsx';

type Integration = Ok<'/api/v1/admin/integrations', 'get'>['items'][number];
type Input = Body<'/api/v1/admin/integrations', 'post'>;
const TYPES: Input['type'][] = ['webhook', 'slack'];

export default function Integrations() {
  const { api } = useApp();
  const qc = useQueryClient();
  const list = useQuery({ queryKey: ['integrations'], queryFn: () => ok(api.GET('/api/v1/admin/integrations')) });
  const [editing, setEditing] = useState<Integration | 'new' | null>(null);
  const remove = async (id: string) => {
    await ok(api.DELETE('/api/v1/admin/integrations/{id}', { params: { path: { id } } }));
    void qc.invalidateQueries({ queryKey: ['integrations'] });
  };
  return (
    <Page title="Integrations" actions={editing ? undefined : <button type="button" className="primary" onClick={() => setEditing('new')}>New integration</button>}>
      <p className="lead">Send events (new conversations, escalations, ticket changes) to your own systems.</p>
      {editing && <IntegrationForm key={editing === 'new' ? 'new' : editing.id} current={editing === 'new' ? null : editing} done={() => setEditing(null)} />}
      {list.isPending ? <Loading /> : list.isError ? <ErrorState error={list.error} retry={() => void list.refetch()} /> : list.data.items.length === 0 ? <Empty>No integration yet.</Empty> : (
        <div className="card">
          <table className="table">
            <thead><tr><th scope="col">Name</th><th scope="col">Type</th><th scope="col">Status</th><th scope="col">Created</th><th scope="col"><span className="visually-hidden">Actions</span></th></tr></thead>
            <tbody>
              {list.data.items.map((i) => (
                <tr key={i.id}>
                  <th scope="row">{i.name}</th>
                  <td>{label(i.type)}</td>
                  <td><Badge value={i.status} /></td>
                  <td><When iso={i.createdAt} /></td>
                  <td className="row">
                    <button type="button" onClick={() => setEditing(i)}>Edit<span className="visually-hidden"> {i.name}</span></button>
                    <Confirm trigger={<button type="button" className="danger">Delete<span className="visually-hidden"> {i.name}</span></button>} title="Delete this integration?" danger
                      body={<p>{i.name} receives no more events.</p>} confirmLabel="Delete" onConfirm={() => remove(i.id)} />
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

function IntegrationForm({ current, done }: { current: Integration | null; done: () => void }) {
  const { api } = useApp();
  const qc = useQueryClient();
  const [type, setType] = useState<Input['type']>(current?.type ?? 'webhook');
  const [name, setName] = useState(current?.name ?? '');
  const [url, setUrl] = useState(typeof current?.config.url === 'string' ? current.config.url : '');
  const [events, setEvents] = useState(Array.isArray(current?.config.events) ? (current.config.events as string[]).join(', ') : '');
  const [secret, setSecret] = useState('');
  const save = useMutation({
    mutationFn: () => {
      const list = events.split(',').map((s) => s.trim()).filter(Boolean);
      const body: Input = type === 'webhook'
        ? { type, name, config: { url, ...(list.length ? { events: list } : {}) }, credentials: secret ? { secret } : {} }
        : { type, name, config: {}, credentials: { webhookUrl: url } };
      return current
        ? ok(api.PUT('/api/v1/admin/integrations/{id}', { params: { path: { id: current.id } }, body }))
        : ok(api.POST('/api/v1/admin/integrations', { body }));
    },
    onSuccess: () => { void qc.invalidateQueries({ queryKey: ['integrations'] }); done(); },
  });
  const errors = fieldErrorsOf(save.error);
  const submit = (e: FormEvent) => { e.preventDefault(); save.mutate(); };
  return (
    <form className="card form" onSubmit={submit} noValidate aria-labelledby="int-h">
      <h2 id="int-h">{current ? `Edit ${current.name}` : 'New integration'}</h2>
      <Field label="Type" error={errors.type}>
        {(p) => <select {...p} value={type} disabled={Boolean(current)} onChange={(e) => setType(e.target.value as Input['type'])}>{TYPES.map((t) => <option key={t} value={t}>{label(t)}</option>)}</select>}
      </Field>
      <Field label="Name" error={errors.name}>{(p) => <input {...p} value={name} onChange={(e) => setName(e.target.value)} maxLength={100} />}</Field>
      <Field label={type === 'webhook' ? 'Endpoint URL' : 'Slack incoming-webhook URL'} error={errors['config.url'] ?? errors['credentials.webhookUrl']} hint="An https URL.">
        {(p) => <input {...p} type="url" value={url} onChange={(e) => setUrl(e.target.value)} />}
      </Field>
      {type === 'webhook' && (
        <>
          <Field label="Events" error={errors['config.events']} hint="Comma-separated event types; empty sends every event.">
            {(p) => <input {...p} value={events} onChange={(e) => setEvents(e.target.value)} placeholder="conversation.escalated, ticket.updated" />}
          </Field>
          <Field label="Signing secret" error={errors['credentials.secret']} hint={current ? 'Stored secrets are never shown again: enter it again to save.' : 'whsec_ followed by base64, as Standard Webhooks defines it.'}>
            {(p) => <input {...p} type="password" autoComplete="off" value={secret} onChange={(e) => setSecret(e.target.value)} />}
          </Field>
        </>
      )}
      <FormError error={save.error} />
      <div className="row">
        <button type="submit" className="primary" disabled={save.isPending}>{current ? 'Save' : 'Create'}</button>
        <button type="button" onClick={done}>Cancel</button>
      </div>
    </form>
  );
}
