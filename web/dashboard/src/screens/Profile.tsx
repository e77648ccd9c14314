import { useState, type FormEvent } from 'react';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { ok } from '../api/client.ts';
import { useApp, useMember } from '../context.tsx';
import { Field, FormError, label, Page, useFieldErrors } from '../ui/index.tsx';

export default function Profile() {
  const { api } = useApp();
  const member = useMember();
  const qc = useQueryClient();
  const [name, setName] = useState(member.displayName ?? '');
  const save = useMutation({
    mutationFn: () => ok(api.PATCH('/api/v1/admin/auth/me', { body: { displayName: name } })),
    onSuccess: () => void qc.invalidateQueries({ queryKey: ['me'] }),
  });
  const errors = useFieldErrors(save.error, { displayName: 'Display name' });
  const submit = (e: FormEvent) => {
    e.preventDefault();
    save.mutate();
  };
  return (
    <Page title="Your profile">
      <div className="card">
        <dl className="facts">
          <div>
            <dt>Email</dt>
            <dd>{member.email ?? '—'}</dd>
          </div>
          <div>
            <dt>Role</dt>
            <dd>{label(member.role)}</dd>
          </div>
          <div>
            <dt>Team</dt>
            <dd>{member.tenant.name}</dd>
          </div>
        </dl>
      </div>
      <form className="card form" onSubmit={submit} noValidate aria-labelledby="name-h">
        <h2 id="name-h">Display name</h2>
        <Field label="Display name" {...errors.field('displayName')} hint="Customers see it next to your replies.">
          {(p) => <input {...p} value={name} maxLength={60} onChange={(e) => setName(e.target.value)} />}
        </Field>
        <FormError error={save.error} fields={errors} />
        {save.isSuccess && (
          <p role="status" className="success">
            Saved.
          </p>
        )}
        <button type="submit" className="primary" disabled={save.isPending}>
          Save
        </button>
      </form>
    </Page>
  );
}
