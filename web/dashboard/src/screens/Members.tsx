import { useState, type FormEvent } from 'react';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { ok } from '../api/client.ts';
import { useApp, useMember } from '../context.tsx';
import { atLeast, ROLES, type Role } from '../roles.ts';
import {
  Badge,
  Confirm,
  Empty,
  ErrorState,
  Field,
  FormError,
  label,
  Loading,
  Page,
  useFieldErrors,
  When,
} from '../ui/index.tsx';

const ROLE_HELP: Record<Role, string> = {
  viewer: 'reads everything',
  agent: 'also works tickets and answers customers',
  admin: 'also edits intents, integrations and settings',
  owner: 'also manages members and the widget key',
};

export default function Members() {
  const { api } = useApp();
  const me = useMember();
  const qc = useQueryClient();
  const list = useQuery({ queryKey: ['members'], queryFn: () => ok(api.GET('/api/v1/admin/members')) });
  const owner = atLeast(me.role, 'owner');
  const patch = useMutation({
    mutationFn: ({ id, role }: { id: string; role: Role }) =>
      ok(api.PATCH('/api/v1/admin/members/{id}', { params: { path: { id } }, body: { role } })),
    onSettled: () => void qc.invalidateQueries({ queryKey: ['members'] }),
  });
  const remove = async (id: string) => {
    await ok(api.DELETE('/api/v1/admin/members/{id}', { params: { path: { id } } }));
    void qc.invalidateQueries({ queryKey: ['members'] });
  };
  return (
    <Page title="Members">
      <p className="lead">Roles: {ROLES.map((r) => `${r} ${ROLE_HELP[r]}`).join('; ')}.</p>
      {owner && <Invite />}
      <FormError error={patch.error} />
      {list.isPending ? (
        <Loading />
      ) : list.isError ? (
        <ErrorState error={list.error} retry={() => void list.refetch()} />
      ) : list.data.items.length === 0 ? (
        <Empty>No member.</Empty>
      ) : (
        <div className="card table-wrap">
          <table className="table">
            <thead>
              <tr>
                <th scope="col">Member</th>
                <th scope="col">Role</th>
                <th scope="col" className="wide-only">
                  Status
                </th>
                <th scope="col" className="wide-only">
                  Since
                </th>
                {owner && (
                  <th scope="col">
                    <span className="visually-hidden">Actions</span>
                  </th>
                )}
              </tr>
            </thead>
            <tbody>
              {list.data.items.map((m) => {
                // The team keeps at least one owner: the only one can be neither demoted nor removed, so is offered neither.
                const soleOwner =
                  m.role === 'owner' &&
                  m.status === 'active' &&
                  list.data.items.filter((x) => x.role === 'owner' && x.status === 'active').length === 1;
                return (
                  <tr key={m.id}>
                    <th scope="row" className="break">
                      {m.displayName}
                      {m.userId === me.sub && ' (you)'}
                      {m.email && <span className="muted small member-email"> {m.email}</span>}
                      <span className="narrow-only">
                        {' '}
                        <Badge value={m.status} />
                      </span>
                    </th>
                    <td>
                      {owner && soleOwner ? (
                        <>
                          {label(m.role)}
                          <span className="muted small block">The only owner: make another member owner first.</span>
                        </>
                      ) : owner ? (
                        <select
                          aria-label={`Role of ${m.email ?? m.id}`}
                          value={m.role}
                          disabled={patch.isPending}
                          onChange={(e) => patch.mutate({ id: m.id, role: e.target.value as Role })}
                        >
                          {ROLES.map((r) => (
                            <option key={r} value={r}>
                              {label(r)}
                            </option>
                          ))}
                        </select>
                      ) : (
                        label(m.role)
                      )}
                    </td>
                    <td className="wide-only">
                      <Badge value={m.status} />
                    </td>
                    <td className="wide-only">
                      <When iso={m.createdAt} />
                    </td>
                    {owner && (
                      <td>
                        {soleOwner ? null : (
                          <Confirm
                            trigger={
                              <button type="button" className="danger">
                                {m.status === 'invited' ? 'Revoke' : 'Remove'}
                                <span className="visually-hidden"> {m.email}</span>
                              </button>
                            }
                            title={m.status === 'invited' ? 'Revoke the invitation?' : 'Remove this member?'}
                            danger
                            body={<p>{m.email} loses access to this team at once.</p>}
                            confirmLabel="Remove"
                            onConfirm={() => remove(m.id)}
                          />
                        )}
                      </td>
                    )}
                  </tr>
                );
              })}
            </tbody>
          </table>
        </div>
      )}
    </Page>
  );
}

function Invite() {
  const { api } = useApp();
  const qc = useQueryClient();
  const [email, setEmail] = useState('');
  const [role, setRole] = useState<Role>('agent');
  const invite = useMutation({
    mutationFn: () => ok(api.POST('/api/v1/admin/members', { body: { email, role } })),
    onSuccess: () => {
      setEmail('');
      void qc.invalidateQueries({ queryKey: ['members'] });
    },
  });
  const errors = useFieldErrors(invite.error, { email: 'Email', role: 'Role' });
  const submit = (e: FormEvent) => {
    e.preventDefault();
    invite.mutate();
  };
  return (
    <form className="card inline-form" onSubmit={submit} noValidate aria-labelledby="invite-h">
      <h2 id="invite-h">Invite someone</h2>
      <Field label="Email" {...errors.field('email')}>
        {(p) => (
          <input {...p} type="email" value={email} onChange={(e) => setEmail(e.target.value)} autoComplete="off" />
        )}
      </Field>
      <Field label="Role" {...errors.field('role')}>
        {(p) => (
          <select {...p} value={role} onChange={(e) => setRole(e.target.value as Role)}>
            {ROLES.map((r) => (
              <option key={r} value={r}>
                {label(r)}
              </option>
            ))}
          </select>
        )}
      </Field>
      <button type="submit" className="primary" disabled={invite.isPending}>
        Invite
      </button>
      <FormError error={invite.error} fields={errors} />
      {invite.isSuccess && (
        <p role="status" className="success">
          Invited. They join when they sign in with that email.
        </p>
      )}
    </form>
  );
}
