import { useState, type FormEvent } from 'react';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { REPLY_PLACEHOLDERS } from '#vocabulary';
import { ok } from '../api/client.ts';
import { useApp, useMember } from '../context.tsx';
import { atLeast } from '../roles.ts';
import { Confirm, Empty, ErrorState, Field, FormError, Loading, Page, useFieldErrors } from '../ui/index.tsx';

// Saved replies: what agents insert with `/` in the reply box. Agents read them here; admins
// write them.

interface Reply {
  id: string;
  shortcut: string;
  title: string;
  body: string;
}
type Form = Pick<Reply, 'shortcut' | 'title' | 'body'>;
const EMPTY: Form = { shortcut: '', title: '', body: '' };
const PLACEHOLDERS = REPLY_PLACEHOLDERS.map((p) => `{{${p}}}`).join(', ');

export default function SavedReplies() {
  const { api } = useApp();
  const member = useMember();
  const canEdit = atLeast(member.role, 'admin');
  const list = useQuery({ queryKey: ['saved-replies'], queryFn: () => ok(api.GET('/api/v1/admin/saved-replies')) });
  const [editing, setEditing] = useState<string | null>(null);
  return (
    <Page title="Saved replies">
      <p className="lead">
        Type <kbd>/</kbd> in a reply to pick one of these; {PLACEHOLDERS} are filled in with the customer's name, yours
        and the ticket number before you send.
      </p>
      {canEdit && <ReplyForm key="new" heading="New saved reply" submitLabel="Save reply" onDone={() => undefined} />}
      {list.isPending ? (
        <Loading />
      ) : list.isError ? (
        <ErrorState error={list.error} retry={() => void list.refetch()} />
      ) : list.data.items.length === 0 ? (
        <Empty>
          {canEdit ? 'No saved reply yet: write the first one above.' : 'No saved reply yet: an admin writes them.'}
        </Empty>
      ) : (
        <ul className="card saved-replies" aria-label="Saved replies">
          {list.data.items.map((r) => (
            <li key={r.id} className="saved-item">
              {editing === r.id ? (
                <ReplyForm
                  heading={`Edit /${r.shortcut}`}
                  submitLabel="Save changes"
                  initial={r}
                  onDone={() => setEditing(null)}
                />
              ) : (
                <>
                  <div className="saved-head">
                    <code>/{r.shortcut}</code> <strong>{r.title}</strong>
                    {canEdit && (
                      <span className="saved-actions">
                        <button type="button" onClick={() => setEditing(r.id)}>
                          Edit<span className="visually-hidden"> /{r.shortcut}</span>
                        </button>
                        <DeleteReply reply={r} />
                      </span>
                    )}
                  </div>
                  <p className="saved-body">{r.body}</p>
                </>
              )}
            </li>
          ))}
        </ul>
      )}
    </Page>
  );
}

function DeleteReply({ reply }: { reply: Reply }) {
  const { api } = useApp();
  const qc = useQueryClient();
  return (
    <Confirm
      trigger={
        <button type="button" className="danger">
          Delete<span className="visually-hidden"> /{reply.shortcut}</span>
        </button>
      }
      title={`Delete /${reply.shortcut}?`}
      danger
      body={<p>“{reply.title}” leaves every agent's picker.</p>}
      confirmLabel="Delete"
      onConfirm={async () => {
        await ok(api.DELETE('/api/v1/admin/saved-replies/{id}', { params: { path: { id: reply.id } } }));
        void qc.invalidateQueries({ queryKey: ['saved-replies'] });
      }}
    />
  );
}

function ReplyForm({
  heading,
  submitLabel,
  initial,
  onDone,
}: {
  heading: string;
  submitLabel: string;
  initial?: Reply;
  onDone: () => void;
}) {
  const { api } = useApp();
  const qc = useQueryClient();
  const [f, setF] = useState<Form>(
    initial ? { shortcut: initial.shortcut, title: initial.title, body: initial.body } : EMPTY,
  );
  const save = useMutation({
    mutationFn: (body: Form) =>
      initial
        ? ok(api.PUT('/api/v1/admin/saved-replies/{id}', { params: { path: { id: initial.id } }, body }))
        : ok(api.POST('/api/v1/admin/saved-replies', { body })),
    onSuccess: () => {
      if (!initial) setF(EMPTY);
      void qc.invalidateQueries({ queryKey: ['saved-replies'] });
      onDone();
    },
  });
  const errors = useFieldErrors(save.error, { shortcut: 'Shortcut', title: 'Title', body: 'Text' });
  const set = (k: keyof Form, v: string) => setF((x) => ({ ...x, [k]: v }));
  const submit = (e: FormEvent) => {
    e.preventDefault();
    if (!save.isPending) save.mutate(f);
  };
  return (
    <form className="card reply-form" onSubmit={submit} noValidate aria-label={heading}>
      <h2>{heading}</h2>
      <Field
        label="Shortcut"
        {...errors.field('shortcut')}
        hint="What agents type after /: lowercase letters, digits and hyphens, up to 32."
      >
        {(p) => (
          <input
            {...p}
            value={f.shortcut}
            maxLength={32}
            autoComplete="off"
            spellCheck={false}
            onChange={(e) => set('shortcut', e.target.value.toLowerCase().replace(/\s+/g, '-'))}
          />
        )}
      </Field>
      <Field label="Title" {...errors.field('title')}>
        {(p) => <input {...p} value={f.title} maxLength={100} onChange={(e) => set('title', e.target.value)} />}
      </Field>
      <Field label="Text" {...errors.field('body')} hint={`Up to 5,000 characters. Placeholders: ${PLACEHOLDERS}.`}>
        {(p) => (
          <textarea {...p} rows={4} value={f.body} maxLength={5000} onChange={(e) => set('body', e.target.value)} />
        )}
      </Field>
      <FormError error={save.error} fields={errors} />
      <div className="form-actions">
        <button type="submit" className="primary" disabled={save.isPending}>
          {submitLabel}
        </button>
        {initial && (
          <button type="button" onClick={onDone}>
            Cancel
          </button>
        )}
      </div>
      {save.isSuccess && !initial && (
        <p role="status" className="success">
          Saved. Agents find it with /{save.data.shortcut}.
        </p>
      )}
    </form>
  );
}
