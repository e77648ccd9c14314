import { useState, type FormEvent } from 'react';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { ok, type Ok } from '../api/client.ts';
import { deletedTeamHint, useApp, useMember } from '../context.tsx';
import { atLeast } from '../roles.ts';
import { Confirm, counted, Field, fieldErrorsOf, FormError } from '../ui/index.tsx';

// The data's life: how long conversations are kept, one customer's export and erasure, and the team's leaving.

type Settings = Ok<'/api/v1/admin/settings', 'get'>;
const daysOf = (s: Settings): number | null => {
  const r = s.config.retention as { conversationDays?: unknown } | undefined;
  return typeof r?.conversationDays === 'number' ? r.conversationDays : null;
};

/** The policy in words, as the service applies it (shared/domain/privacy/retention.ts). */
export const retentionPolicy = (days: number | null) =>
  days === null
    ? 'Conversations are kept for ever.'
    : `A conversation idle for ${days} days is removed with its messages and closed tickets, within a day or two. ` +
      'A conversation with an unclosed ticket is kept until the ticket closes; the statistics of past days stay.';

export function RetentionForm({ settings }: { settings: Settings }) {
  const { api } = useApp();
  const member = useMember();
  const qc = useQueryClient();
  const current = daysOf(settings);
  const [days, setDays] = useState(current === null ? '' : String(current));
  const save = useMutation({
    mutationFn: () =>
      ok(
        api.PUT('/api/v1/admin/settings', {
          body: { config: { retention: days.trim() ? { conversationDays: Number(days) } : null } },
        }),
      ),
    onSuccess: (data) => {
      qc.setQueryData(['settings'], data);
    },
  });
  const errors = fieldErrorsOf(save.error);
  const submit = (e: FormEvent) => {
    e.preventDefault();
    save.mutate();
  };
  return (
    <form className="card form" onSubmit={submit} noValidate aria-labelledby="retention-h">
      <h2 id="retention-h">Keeping conversations</h2>
      <p role="status">{retentionPolicy(current)}</p>
      {atLeast(member.role, 'admin') ? (
        <>
          <Field
            label="Remove conversations idle for (days)"
            error={errors['config.retention.conversationDays']}
            hint="30 to 3650 days; empty keeps everything."
          >
            {(p) => <input {...p} inputMode="numeric" value={days} onChange={(e) => setDays(e.target.value)} />}
          </Field>
          <FormError error={save.error && !errors['config.retention.conversationDays'] ? save.error : null} />
          <button type="submit" className="primary" disabled={save.isPending}>
            Save retention
          </button>
        </>
      ) : (
        <p className="muted">Only an admin can change this.</p>
      )}
    </form>
  );
}

/** Looks a customer up by email (an @ in it) or by the site's verified user id. */
const lookup = (who: string) => (who.includes('@') ? { email: who.trim() } : { userId: who.trim() });

export function CustomerDataCard() {
  const { api } = useApp();
  const member = useMember();
  const [who, setWho] = useState('');
  const [done, setDone] = useState<string | null>(null);
  const exported = useMutation({
    mutationFn: () => ok(api.POST('/api/v1/admin/customers/export', { body: lookup(who) })),
    onSuccess: (doc) => {
      const url = URL.createObjectURL(new Blob([JSON.stringify(doc, null, 2)], { type: 'application/json' }));
      const a = document.createElement('a');
      a.href = url;
      a.download = `customer-${doc.reference}.json`;
      a.click();
      URL.revokeObjectURL(url);
      setDone(`Exported ${doc.conversations.length} conversation(s) as customer-${doc.reference}.json.`);
    },
  });
  const erase = async () => {
    const r = await ok(api.POST('/api/v1/admin/customers/erase', { body: lookup(who) }));
    const closed = r.ticketsClosed
      ? ` Closed ${counted(r.ticketsClosed, 'open ticket')} of theirs, so nobody waits on them.`
      : '';
    setDone(
      `Erased: ${counted(r.conversations, 'conversation')}, ${counted(r.examples, 'taught example')}.${closed} Reference ${r.reference}.`,
    );
  };
  if (!atLeast(member.role, 'admin')) return null;
  const errors = fieldErrorsOf(exported.error);
  return (
    <section className="card form" aria-labelledby="customer-data-h">
      <h2 id="customer-data-h">A customer's data</h2>
      <p>Everything held about one customer, as a JSON file, or erased everywhere (GDPR articles 15, 17 and 20).</p>
      <Field label="Email address or verified user id" error={errors.email ?? errors.userId ?? errors['']}>
        {(p) => (
          <input
            {...p}
            value={who}
            autoComplete="off"
            onChange={(e) => {
              setWho(e.target.value);
              setDone(null);
            }}
          />
        )}
      </Field>
      <FormError error={exported.error && !Object.keys(errors).length ? exported.error : null} />
      {done && (
        <p role="status" className="success">
          {done}
        </p>
      )}
      <div className="row">
        <button type="button" disabled={!who.trim() || exported.isPending} onClick={() => exported.mutate()}>
          Export their data
        </button>
        <Confirm
          trigger={
            <button type="button" className="danger" disabled={!who.trim()}>
              Erase their data
            </button>
          }
          title="Erase this customer's data?"
          danger
          body={
            <p>
              Their messages, name, email and ratings' comments are removed everywhere, and examples taught from their
              messages are taken back. This cannot be undone. Counts and tickets stay.
            </p>
          }
          confirmLabel="Erase"
          onConfirm={erase}
        />
      </div>
    </section>
  );
}

/** The owner takes the tenant's data (a JSON lines file) or deletes the tenant, typing its name. */
export function LeaveCard() {
  const { api } = useApp();
  const member = useMember();
  const qc = useQueryClient();
  const [name, setName] = useState('');
  // The export is a job: started here, then read every 2 s until its file is ready.
  const started = useMutation({ mutationFn: () => ok(api.POST('/api/v1/admin/tenant/export', {})) });
  const exportId = started.data?.id;
  const job = useQuery({
    queryKey: ['tenant-export', exportId],
    queryFn: () => ok(api.GET('/api/v1/admin/tenant/export/{id}', { params: { path: { id: exportId! } } })),
    enabled: exportId !== undefined,
    refetchInterval: (q) => (q.state.data?.status === 'done' || q.state.data?.status === 'failed' ? false : 2000),
  });
  const state = job.data ?? started.data;
  const running = started.isPending || state?.status === 'queued' || state?.status === 'running';
  const remove = async () => {
    await ok(api.POST('/api/v1/admin/tenant/deletion', { body: { name } }));
    try {
      localStorage.setItem(deletedTeamHint(member.sub), '1');
    } catch {
      /* the progress is then not shown here */
    }
    // The owner is unlinked at once: the shell shows the deletion's progress where a team would be made.
    await qc.resetQueries({ queryKey: ['me'] });
  };
  if (!atLeast(member.role, 'owner')) return null;
  return (
    <section className="card form" aria-labelledby="leave-h">
      <h2 id="leave-h">Leaving</h2>
      <p>Take everything the team holds as one JSON lines file, or delete the team and all of its data.</p>
      <FormError error={started.error ?? job.error} />
      {state && (
        <p role="status" className={state.status === 'done' ? 'success' : undefined}>
          {state.status === 'queued' && 'Export queued…'}
          {state.status === 'running' && `Exporting… ${state.items} items so far.`}
          {state.status === 'failed' && 'The export failed. Try again.'}
          {state.status === 'done' && state.url && (
            <>
              Exported {state.items} items (export {state.id}).{' '}
              <a href={state.url} download={`tenant-${member.tenant.id}.jsonl`}>
                Download tenant-{member.tenant.id}.jsonl
              </a>
              {state.urlExpiresAt &&
                ` (the link works until ${new Date(state.urlExpiresAt).toLocaleTimeString()}; come back for a fresh one within a day)`}
            </>
          )}
        </p>
      )}
      <div className="row">
        <button type="button" disabled={running} onClick={() => started.mutate()}>
          Export all data
        </button>
      </div>
      <Field label={`Type "${member.tenant.name}" to delete the team`}>
        {(p) => <input {...p} value={name} autoComplete="off" onChange={(e) => setName(e.target.value)} />}
      </Field>
      <div className="row">
        <Confirm
          trigger={
            <button type="button" className="danger" disabled={name !== member.tenant.name}>
              Delete the team
            </button>
          }
          title={`Delete ${member.tenant.name}?`}
          danger
          body={
            <p>
              The widget stops at once, integrations stop, and every member loses access. Everything else is removed in
              the background. This cannot be undone.
            </p>
          }
          confirmLabel="Delete"
          onConfirm={remove}
        />
      </div>
    </section>
  );
}
