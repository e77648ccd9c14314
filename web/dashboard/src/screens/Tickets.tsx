import { useState } from 'react';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { Link, useNavigate, useParams, useSearchParams } from 'react-router';
import { TICKET_MOVES } from '#vocabulary';
import { ok } from '../api/client.ts';
import {
  TICKET_PRIORITIES as PRIORITIES,
  TICKET_STATUSES as STATUSES,
  type TicketPriority as Priority,
  type TicketStatus as Status,
} from '../api/types.ts';
import { useApp, useMember } from '../context.tsx';
import { usePollInterval } from '../live.tsx';
import { atLeast } from '../roles.ts';
import { AuditTrail } from './AuditTrail.tsx';
import { RatingNote, ticketName, useAssigneeName, VisitorLine } from './Customer.tsx';
import {
  Badge,
  Empty,
  ErrorState,
  Field,
  FormError,
  label,
  Loading,
  Page,
  Pager,
  usePager,
  When,
} from '../ui/index.tsx';

const ASSIGNEES = ['me', 'none'] as const;

export default function Tickets() {
  const { id } = useParams();
  return id ? (
    <TicketView key={id} id={id} />
  ) : (
    <Page title="Tickets">
      <TicketList />
    </Page>
  );
}

/** `?number=` as typed: digits only, else nothing (the field says why). */
const numberOf = (v: string | null) =>
  v && /^[1-9][0-9]{0,9}$/.test(v.trim().replace(/^#/, '')) ? v.trim().replace(/^#/, '') : null;

function TicketList() {
  const { api } = useApp();
  const [params, setParams] = useSearchParams();
  const status = STATUSES.find((s) => s === params.get('status'));
  const priority = PRIORITIES.find((p) => p === params.get('priority'));
  const assignee = ASSIGNEES.find((a) => a === params.get('assignee'));
  const number = numberOf(params.get('number'));
  const [typed, setTyped] = useState(params.get('number') ?? '');
  const typedBad = typed.trim() !== '' && !numberOf(typed);
  const pager = usePager(`${status}|${priority}|${assignee}|${number}`);
  const assigneeName = useAssigneeName();
  const list = useQuery({
    queryKey: ['tickets', status, priority, assignee, number, pager.cursor],
    queryFn: () =>
      ok(
        api.GET('/api/v1/admin/tickets', {
          params: {
            query: {
              ...(status ? { status } : {}),
              ...(priority ? { priority } : {}),
              ...(assignee ? { assignee } : {}),
              ...(number ? { number } : {}),
              ...(pager.cursor ? { cursor: pager.cursor } : {}),
            },
          },
        }),
      ),
    refetchInterval: usePollInterval(),
  });
  const set = (key: string, value: string) => {
    const next = new URLSearchParams(params);
    if (value) next.set(key, value);
    else next.delete(key);
    setParams(next);
  };
  const navigate = useNavigate();
  /** Finding `#12` opens ticket #12; a number no ticket has lists nothing and says so. */
  const find = useMutation({
    mutationFn: (n: string) => ok(api.GET('/api/v1/admin/tickets', { params: { query: { number: n } } })),
    onSuccess: (found, n) => {
      const only = found.items.length === 1 ? found.items[0] : undefined;
      if (only) void navigate(`/tickets/${only.id}`);
      else set('number', n);
    },
  });
  return (
    <>
      <form
        className="filters"
        aria-label="Find a ticket by number"
        noValidate
        onSubmit={(e) => {
          e.preventDefault();
          const n = numberOf(typed);
          if (n) find.mutate(n);
          else if (!typedBad) set('number', '');
        }}
      >
        <Field
          label="Ticket number"
          error={typedBad ? 'A ticket number is a whole number from 1, like 12 or #12.' : undefined}
          hint="The number the customer was given, like #12."
        >
          {(p) => <input {...p} inputMode="numeric" value={typed} onChange={(e) => setTyped(e.target.value)} />}
        </Field>
        <button type="submit" disabled={find.isPending}>
          {find.isPending ? 'Finding…' : 'Find'}
        </button>
        {number && (
          <button
            type="button"
            onClick={() => {
              setTyped('');
              set('number', '');
            }}
          >
            Show all tickets
          </button>
        )}
      </form>
      <FormError error={find.error} />
      <form className="filters" aria-label="Filters" onSubmit={(e) => e.preventDefault()}>
        <Field label="Status">
          {(p) => (
            <select {...p} value={status ?? ''} onChange={(e) => set('status', e.target.value)}>
              <option value="">All</option>
              {STATUSES.map((s) => (
                <option key={s} value={s}>
                  {label(s)}
                </option>
              ))}
            </select>
          )}
        </Field>
        <Field label="Priority">
          {(p) => (
            <select {...p} value={priority ?? ''} onChange={(e) => set('priority', e.target.value)}>
              <option value="">All</option>
              {PRIORITIES.map((s) => (
                <option key={s} value={s}>
                  {label(s)}
                </option>
              ))}
            </select>
          )}
        </Field>
        <Field label="Assignee">
          {(p) => (
            <select {...p} value={assignee ?? ''} onChange={(e) => set('assignee', e.target.value)}>
              <option value="">Anyone</option>
              <option value="me">Assigned to me</option>
              <option value="none">Unassigned</option>
            </select>
          )}
        </Field>
      </form>
      {list.isPending ? (
        <Loading />
      ) : list.isError ? (
        <ErrorState error={list.error} retry={() => void list.refetch()} />
      ) : list.data.items.length === 0 ? (
        <Empty>
          {number
            ? `No ticket #${number}.`
            : status || priority || assignee
              ? 'No ticket matches these filters.'
              : 'No ticket yet. Tickets open when a customer asks for a person.'}
        </Empty>
      ) : (
        <div className="card">
          <div className="table-wrap">
            <table className="table">
              <thead>
                <tr>
                  <th scope="col">Ticket</th>
                  <th scope="col" className="wide-only">
                    Customer
                  </th>
                  <th scope="col">Status</th>
                  <th scope="col" className="wide-only">
                    Priority
                  </th>
                  <th scope="col" className="wide-only">
                    Assignee
                  </th>
                  <th scope="col">Reason</th>
                  <th scope="col" className="wide-only">
                    Updated
                  </th>
                </tr>
              </thead>
              <tbody>
                {list.data.items.map((t) => (
                  <tr key={t.id}>
                    <th scope="row" className="break">
                      <Link to={`/tickets/${t.id}`} aria-label={`Ticket ${ticketName(t)}`}>
                        {ticketName(t)}
                      </Link>
                    </th>
                    {/* The customer by name or address: an email conversation's title is its subject, not who wrote. */}
                    <td className="wide-only">
                      {t.visitor || t.conversationTitle ? (
                        <VisitorLine
                          title={t.visitor?.name ?? t.visitor?.email ?? t.conversationTitle ?? undefined}
                          visitor={t.visitor}
                        />
                      ) : (
                        '—'
                      )}
                    </td>
                    {/* At phone width the priority goes under the status, the customer out (the ticket shows both). */}
                    <td>
                      <Badge value={t.status} />
                      <span className="narrow-only">
                        {' '}
                        <Badge value={t.priority} kind={`p-${t.priority}`} />
                      </span>
                    </td>
                    <td className="wide-only">
                      <Badge value={t.priority} kind={`p-${t.priority}`} />
                    </td>
                    <td className="wide-only">{assigneeName(t.assigneeId)}</td>
                    <td className="truncate">{t.reason}</td>
                    <td className="wide-only">
                      <When iso={t.updatedAt} />
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
          <Pager pager={pager} nextCursor={list.data.nextCursor} label="Ticket" />
        </div>
      )}
    </>
  );
}

function TicketView({ id }: { id: string }) {
  const { api } = useApp();
  const member = useMember();
  const qc = useQueryClient();
  const detail = useQuery({
    queryKey: ['ticket', id],
    queryFn: () => ok(api.GET('/api/v1/admin/tickets/{id}', { params: { path: { id } } })),
    refetchInterval: usePollInterval(),
  });
  const patch = useMutation({
    mutationFn: (body: { status?: Status; priority?: Priority; assigneeId?: string | null }) =>
      ok(api.PATCH('/api/v1/admin/tickets/{id}', { params: { path: { id } }, body })),
    onSuccess: () => {
      void qc.invalidateQueries({ queryKey: ['ticket', id] });
      void qc.invalidateQueries({ queryKey: ['tickets'] });
      void qc.invalidateQueries({ queryKey: ['conversation'] });
    },
  });
  if (detail.isPending)
    return (
      <Page title="Ticket">
        <Loading />
      </Page>
    );
  if (detail.isError)
    return (
      <Page title="Ticket">
        <ErrorState error={detail.error} retry={() => void detail.refetch()} />
      </Page>
    );
  const { ticket, conversation, auditTrail } = detail.data;
  const canEdit = atLeast(member.role, 'agent');
  const moves = TICKET_MOVES[ticket.status];
  // The assignee by name: the trail's entries name the members their changes name.
  const who =
    ticket.assigneeId === member.sub
      ? `${member.displayName} (you)`
      : (auditTrail.map((e) => e.names[ticket.assigneeId ?? '']).find(Boolean) ?? 'a team member');

  return (
    <Page title={`Ticket ${ticketName(ticket)}`}>
      <p>
        <Link to="/tickets">All tickets</Link>
      </p>
      <div className="grid-2">
        <section className="card" aria-labelledby="t-h">
          <h2 id="t-h">Details</h2>
          <dl className="facts">
            <div>
              <dt>Number</dt>
              <dd>{ticket.number != null ? `#${ticket.number}` : 'None yet (made before numbering)'}</dd>
            </div>
            <div>
              <dt>Customer</dt>
              <dd>
                {conversation ? (
                  <VisitorLine
                    title={conversation.visitor?.name ?? conversation.visitor?.email ?? conversation.title}
                    visitor={conversation.visitor}
                  />
                ) : (
                  '—'
                )}
              </dd>
            </div>
            <div>
              <dt>Status</dt>
              <dd>
                <Badge value={ticket.status} />
              </dd>
            </div>
            <div>
              <dt>Priority</dt>
              <dd>
                <Badge value={ticket.priority} kind={`p-${ticket.priority}`} />
              </dd>
            </div>
            <div>
              <dt>Reason</dt>
              <dd>{ticket.reason}</dd>
            </div>
            <div>
              <dt>Assignee</dt>
              <dd>{ticket.assigneeId ? who : 'Nobody'}</dd>
            </div>
            <div>
              <dt>Opened</dt>
              <dd>
                <When iso={ticket.createdAt} />
              </dd>
            </div>
            {ticket.firstResponseAt && (
              <div>
                <dt>First reply</dt>
                <dd>
                  <When iso={ticket.firstResponseAt} />
                </dd>
              </div>
            )}
            {ticket.resolvedAt && (
              <div>
                <dt>Resolved</dt>
                <dd>
                  <When iso={ticket.resolvedAt} />
                </dd>
              </div>
            )}
            <div>
              <dt>Updated</dt>
              <dd>
                <When iso={ticket.updatedAt} />
              </dd>
            </div>
            <div>
              <dt>Conversation</dt>
              <dd>
                {conversation ? (
                  <Link to={`/inbox/${conversation.id}`}>{conversation.subject ?? conversation.title}</Link>
                ) : (
                  '—'
                )}
              </dd>
            </div>
          </dl>
          {conversation?.rating && <RatingNote rating={conversation.rating} />}
        </section>
        {canEdit && (
          <section className="card" aria-labelledby="change-h">
            <h2 id="change-h">Change</h2>
            {moves.length === 0 ? (
              <p>A closed ticket changes no more.</p>
            ) : (
              <>
                <fieldset className="moves">
                  <legend>Move to</legend>
                  {moves.map((s) => (
                    <button
                      key={s}
                      type="button"
                      onClick={() => patch.mutate({ status: s })}
                      disabled={patch.isPending}
                    >
                      {label(s)}
                    </button>
                  ))}
                </fieldset>
                <Field label="Priority">
                  {(p) => (
                    <select
                      {...p}
                      value={ticket.priority}
                      disabled={patch.isPending}
                      onChange={(e) => patch.mutate({ priority: e.target.value as Priority })}
                    >
                      {PRIORITIES.map((s) => (
                        <option key={s} value={s}>
                          {label(s)}
                        </option>
                      ))}
                    </select>
                  )}
                </Field>
              </>
            )}
            {moves.length > 0 && (
              <fieldset className="moves">
                <legend>Assignee</legend>
                {ticket.assigneeId !== member.sub && (
                  <button
                    type="button"
                    onClick={() => patch.mutate({ assigneeId: member.sub })}
                    disabled={patch.isPending}
                  >
                    Assign to me
                  </button>
                )}
                {ticket.assigneeId && (
                  <button type="button" onClick={() => patch.mutate({ assigneeId: null })} disabled={patch.isPending}>
                    Unassign
                  </button>
                )}
                {atLeast(member.role, 'admin') && (
                  <AssignTo
                    current={ticket.assigneeId}
                    onPick={(assigneeId) => patch.mutate({ assigneeId })}
                    busy={patch.isPending}
                  />
                )}
              </fieldset>
            )}
            <FormError error={patch.error} />
            {patch.isSuccess && (
              <p className="muted" role="status">
                Saved.
              </p>
            )}
          </section>
        )}
      </div>
      <section className="card" aria-labelledby="trail-h">
        <h2 id="trail-h">Audit trail</h2>
        <AuditTrail entries={auditTrail} />
      </section>
    </Page>
  );
}

/** Admins may assign any active member (the member list is theirs to read). */
function AssignTo({ current, onPick, busy }: { current: string | null; onPick: (id: string) => void; busy: boolean }) {
  const { api } = useApp();
  const members = useQuery({ queryKey: ['members'], queryFn: () => ok(api.GET('/api/v1/admin/members')) });
  const active = (members.data?.items ?? []).filter((m) => m.status === 'active' && m.userId);
  if (active.length < 2) return null;
  return (
    <Field label="Assign to">
      {(p) => (
        <select {...p} value={current ?? ''} disabled={busy} onChange={(e) => e.target.value && onPick(e.target.value)}>
          <option value="">Choose a member</option>
          {active.map((m) => (
            <option key={m.userId} value={m.userId!}>
              {m.displayName}
              {m.email ? ` (${m.email})` : ''}
            </option>
          ))}
        </select>
      )}
    </Field>
  );
}
