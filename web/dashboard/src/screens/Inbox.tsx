import { useState, type FormEvent } from 'react';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { Link, useParams, useSearchParams } from 'react-router';
import { ok, type Ok } from '../api/client.ts';
import { CHANNELS, CONVERSATION_STAGES } from '#vocabulary';
import type { ReplyPlaceholder } from '#vocabulary';
import { useApp, useMember } from '../context.tsx';
import { useCustomerTyping, usePollInterval, useSignalTyping } from '../live.tsx';
import { LabelChips, LabelEditor, LabelFilter } from './Labels.tsx';
import { ReplyTextarea } from './Reply.tsx';
import { firstNameOf } from './reply-text.ts';
import { atLeast } from '../roles.ts';
import { CustomerPanel, RatingNote, ticketName, useAssigneeName, VisitorLine } from './Customer.tsx';
import {
  TargetPicker,
  TeachResult,
  taughtKey,
  useTargetLabel,
  useTeach,
  type CustomerMessage,
  type Example,
  type Target,
  type Taught,
} from './Teach.tsx';
import {
  Badge,
  counted,
  Empty,
  ErrorState,
  Field,
  FormError,
  label as label_,
  Loading,
  Page,
  Pager,
  percent,
  useFieldErrors,
  usePager,
  When,
} from '../ui/index.tsx';

export default function Inbox() {
  const { id } = useParams();
  return (
    <Page title="Inbox">
      <div className={`split${id ? ' has-detail' : ''}`}>
        <ConversationList selected={id} />
        {id ? (
          <ConversationDetail key={id} id={id} />
        ) : (
          <div className="card detail-empty">
            <Empty>Pick a conversation to read it.</Empty>
          </div>
        )}
      </div>
    </Page>
  );
}

function ConversationList({ selected }: { selected: string | undefined }) {
  const { api } = useApp();
  const [params, setParams] = useSearchParams();
  const stage = CONVERSATION_STAGES.find((s) => s === params.get('stage'));
  const label = params.get('label') ?? '';
  const channel = CHANNELS.find((c) => c === params.get('channel'));
  const pager = usePager(`${stage ?? ''}|${label}|${channel ?? ''}`);
  const filters = new URLSearchParams({
    ...(stage ? { stage } : {}),
    ...(label ? { label } : {}),
    ...(channel ? { channel } : {}),
  }).toString();
  const assignee = useAssigneeName();
  const setFilter = (k: 'stage' | 'label' | 'channel', v: string) => {
    const next = new URLSearchParams(params);
    if (v) next.set(k, v);
    else next.delete(k);
    setParams(next);
  };
  const list = useQuery({
    queryKey: ['conversations', stage, label, channel, pager.cursor],
    queryFn: () =>
      ok(
        api.GET('/api/v1/admin/conversations', {
          params: {
            query: {
              ...(stage ? { stage } : {}),
              ...(label ? { label } : {}),
              ...(channel ? { channel } : {}),
              ...(pager.cursor ? { cursor: pager.cursor } : {}),
            },
          },
        }),
      ),
    refetchInterval: usePollInterval(),
  });
  return (
    <section className="card list-pane" aria-labelledby="conv-h">
      <h2 id="conv-h">Conversations</h2>
      <Field label="Needs">
        {(p) => (
          <select {...p} value={stage ?? ''} onChange={(e) => setFilter('stage', e.target.value)}>
            <option value="">All</option>
            {CONVERSATION_STAGES.map((s) => (
              <option key={s} value={s}>
                {label_(s)}
              </option>
            ))}
          </select>
        )}
      </Field>
      <Field label="Channel">
        {(p) => (
          <select {...p} value={channel ?? ''} onChange={(e) => setFilter('channel', e.target.value)}>
            <option value="">All</option>
            <option value="widget">Chat widget</option>
            <option value="email">Email</option>
          </select>
        )}
      </Field>
      <LabelFilter value={label} onChange={(v) => setFilter('label', v)} />
      {list.isPending ? (
        <Loading />
      ) : list.isError ? (
        <ErrorState error={list.error} retry={() => void list.refetch()} />
      ) : list.data.items.length === 0 ? (
        <Empty>
          {label
            ? `No ${stage ? `${label_(stage).toLowerCase()} ` : ''}conversation labelled ${label}.`
            : stage
              ? `No conversation: ${label_(stage).toLowerCase()}.`
              : 'No conversation yet.'}
        </Empty>
      ) : (
        <>
          <ul className="list">
            {list.data.items.map((c) => (
              <li key={c.id} className={c.id === selected ? 'selected' : undefined}>
                <Link
                  to={`/inbox/${c.id}${filters ? `?${filters}` : ''}`}
                  className="list-main"
                  aria-current={c.id === selected ? 'page' : undefined}
                >
                  {c.channel === 'email' && (
                    <span className="channel-mark" title="Email">
                      ✉<span className="visually-hidden">Email: </span>
                    </span>
                  )}
                  {c.title}
                </Link>
                {c.visitor && (
                  <span className="list-meta">
                    <VisitorLine visitor={c.visitor} />
                  </span>
                )}
                {c.lastMessagePreview && <span className="list-meta truncate">{c.lastMessagePreview}</span>}
                <span className="list-meta">
                  <StageBadge c={c} /> {counted(c.messageCount, 'message')}
                  {c.lastIntent ? ` · ${c.lastIntent}` : ''} · <When iso={c.updatedAt} />
                </span>
                {c.ticket && (
                  <span className="list-meta ticket-state">
                    Ticket {ticketName(c.ticket)} · {label_(c.ticket.status)} · {assignee(c.ticket.assigneeId)}
                    {c.rating && <> · rated {c.rating.score}/5</>}
                  </span>
                )}
                <LabelChips labels={c.labels} />
                <RowTyping id={c.id} />
              </li>
            ))}
          </ul>
          <Pager pager={pager} nextCursor={list.data.nextCursor} label="Conversation" />
        </>
      )}
    </section>
  );
}

function ConversationDetail({ id }: { id: string }) {
  const { api } = useApp();
  const member = useMember();
  const detail = useQuery({
    queryKey: ['conversation', id],
    queryFn: () => ok(api.GET('/api/v1/admin/conversations/{id}', { params: { path: { id } } })),
    refetchInterval: usePollInterval(),
  });
  const admin = atLeast(member.role, 'admin');
  // What the team taught lately, by the customer's message it came from.
  const examples = useQuery({
    queryKey: ['nlu-examples', 'recent'],
    queryFn: () => ok(api.GET('/api/v1/admin/nlu/examples', { params: { query: { limit: '100' } } })),
    enabled: admin,
  });
  // Newest first: reversed, so that the newest example of a message is the one kept.
  const taughtBefore = new Map(
    (examples.data?.items ?? [])
      .filter((e) => e.messageId)
      .reverse()
      .map((e) => [e.messageId!, e]),
  );
  if (detail.isPending)
    return (
      <section className="card detail">
        <Loading />
      </section>
    );
  if (detail.isError)
    return (
      <section className="card detail">
        <ErrorState error={detail.error} retry={() => void detail.refetch()} />
      </section>
    );
  const { conversation, tickets } = detail.data;
  const { messages } = detail.data;
  return (
    <section className="card detail" aria-labelledby="detail-h">
      <div className="detail-head">
        <h2 id="detail-h">{conversation.title}</h2>
        <StageBadge c={conversation} />
        <span className="muted small">
          started <When iso={conversation.createdAt} />
        </span>
      </div>
      <CustomerPanel conversationId={conversation.id} visitor={conversation.visitor} />
      {conversation.rating && <RatingNote rating={conversation.rating} />}
      {tickets.length > 0 && (
        <div className="tickets-strip">
          <h3>Tickets</h3>
          <ul>
            {tickets.map((t) => (
              <li key={t.id}>
                <Link to={`/tickets/${t.id}`}>Ticket {ticketName(t)}</Link> <Badge value={t.status} />{' '}
                <Badge value={t.priority} kind={`p-${t.priority}`} /> <span className="muted">{t.reason}</span>
              </li>
            ))}
          </ul>
        </div>
      )}
      <LabelEditor conversationId={id} labels={conversation.labels} canEdit={atLeast(member.role, 'agent')} />
      <ol className="messages" aria-label="Messages">
        {messages.map((m, i) => {
          // The customer's message this reply answered: the last one before it.
          const asked = m.role === 'assistant' ? messages.slice(0, i).findLast((x) => x.role === 'user') : undefined;
          return (
            <li key={m.id} className={`msg msg-${m.role}`}>
              <div className="msg-who">
                {m.role === 'user' ? 'Customer' : m.role === 'agent' ? (m.author?.name ?? 'Agent') : 'Assistant'}
                <span className="muted small">
                  {' '}
                  · <When iso={m.createdAt} />
                </span>
              </div>
              <p className="msg-text">{m.content}</p>
              {m.email && (
                <p className="msg-meta">
                  From {m.email.from}
                  {m.email.trimmed ? ' · quoted text hidden' : ''}
                  {m.email.automatic ? ' · sent automatically' : ''}
                  {m.email.originalUrl && (
                    <>
                      {' '}
                      · <a href={m.email.originalUrl}>original message</a>
                    </>
                  )}
                </p>
              )}
              {m.attachments && m.attachments.length > 0 && <Attachments files={m.attachments} />}
              {m.delivery && (
                <p className={`msg-meta${REFUSED.has(m.delivery.status) ? ' msg-meta-bad' : ''}`}>
                  Email {DELIVERY_TEXT[m.delivery.status]}
                  {m.delivery.reason ? (
                    <>
                      {' '}
                      · <span className="delivery-reason">{m.delivery.reason}</span>
                    </>
                  ) : null}
                </p>
              )}
              {m.role === 'assistant' && m.metadata && (
                <>
                  <AnsweredBy metadata={m.metadata} />
                  {admin && asked && (
                    <ReplyTeach
                      key={asked.id}
                      asked={{ message: asked.content, conversationId: id, messageId: asked.id }}
                      earlier={taughtBefore.get(asked.id)}
                    />
                  )}
                </>
              )}
            </li>
          );
        })}
      </ol>
      <CustomerTyping id={id} />
      {atLeast(member.role, 'agent') && conversation.status !== 'closed' && (
        <ReplyBox
          id={id}
          goesTo={goesTo(conversation.channel, detail.data.replyTo)}
          values={{
            'visitor.name': conversation.visitor?.name ?? '',
            'visitor.firstName': firstNameOf(conversation.visitor?.name),
            'agent.name': member.displayName ?? '',
            'ticket.number': String(tickets.find((t) => t.id === conversation.latestTicketId)?.number ?? ''),
          }}
        />
      )}
      {conversation.status === 'closed' && (
        <p className="muted">This conversation is closed: every ticket of it is closed.</p>
      )}
    </section>
  );
}

/** What the conversation needs (waiting for us, for the customer, done), or its status while the assistant handles it alone. */
function StageBadge({ c }: { c: { status: string; stage: string | null } }) {
  return c.stage ? <Badge value={c.stage} /> : <Badge value={c.status} />;
}

/** The list's hint that a conversation's customer is typing now. */
function RowTyping({ id }: { id: string }) {
  return useCustomerTyping(id) ? <span className="list-meta typing-row">typing…</span> : null;
}

/** "Customer is typing…" while their signals keep coming (a polite status, so screen readers hear it once). */
function CustomerTyping({ id }: { id: string }) {
  const typing = useCustomerTyping(id);
  return (
    <p className="typing-note muted small" role="status">
      {typing ? 'Customer is typing…' : ''}
    </p>
  );
}

type Metadata = NonNullable<Ok<'/api/v1/admin/conversations/{id}', 'get'>['messages'][number]['metadata']>;

/** What answered a reply (an intent, a help article or the fallback) and how sure the assistant was. */
function AnsweredBy({ metadata: md }: { metadata: Metadata }) {
  const entities = Object.entries(md.entitiesExtracted);
  const source = md.sources?.[0];
  return (
    <p className="msg-meta">
      {md.intentDetected === 'knowledge_base' ? (
        <>
          Answered from the article{' '}
          {source ? (
            <Link to={`/knowledge/${encodeURIComponent(source.articleId)}`}>{source.title}</Link>
          ) : (
            'of the help centre'
          )}
        </>
      ) : md.intentDetected === 'fallback' ? (
        <>Fallback: nothing answered</>
      ) : md.intentDetected === 'handover' ? (
        <>Handed over: the customer asked for a person</>
      ) : (
        <>
          Answered by the intent <strong>{md.intentDetected}</strong>
        </>
      )}
      {' · '}confidence {percent(md.confidence)}
      {entities.length > 0 && <> · entities {entities.map(([k, v]) => `${k}=${v}`).join(', ')}</>}
    </p>
  );
}

/**
 * "Should have been…" on a reply (admins): teaches the customer's message, then says so with an undo.
 * A message taught earlier (among the newest 100 examples) says what it was taught to.
 */
function ReplyTeach({ asked, earlier }: { asked: CustomerMessage; earlier: Example | undefined }) {
  const { teach } = useTeach();
  const [taught, setTaught] = useState<Taught | null>(null);
  const earlierLabel = useTargetLabel(taught ? undefined : earlier?.target);
  const shown: Taught | null =
    taught ??
    (earlier && earlierLabel !== undefined
      ? {
          target: earlier.target,
          targetLabel: earlierLabel,
          created: [],
          existing: [earlier],
          total: 1,
          error: null,
          earlier: true,
        }
      : null);
  const pick = async (target: Target, label: string) => {
    const r = await teach([asked], target, label);
    if (r.error && r.created.length + r.existing.length === 0) throw r.error;
    setTaught(r);
  };
  return (
    <div className="msg-teach">
      {shown && <TeachResult key={taughtKey(shown)} taught={shown} onUndone={() => setTaught(shown)} />}
      <TargetPicker
        title="What should have answered this?"
        messages={[asked.message]}
        onPick={pick}
        trigger={
          <button type="button" className="small-button">
            Should have been…
            <span className="visually-hidden"> (teach the assistant what answers “{asked.message}”)</span>
          </button>
        }
      />
    </div>
  );
}

const DELIVERY_TEXT = {
  sending: 'being sent',
  sent: 'sent',
  delivered: 'delivered',
  bounced: 'bounced: the address is suppressed',
  complained: 'marked as spam: the address is suppressed',
  failed: 'not sent: refused by the sending service',
} as const;
/** The final statuses that mean the customer did not get the reply: shown as a warning. */
const REFUSED = new Set(['bounced', 'complained', 'failed']);
const INLINE_IMAGE = /^image\/(png|jpeg|gif|webp)$/;

type File = NonNullable<Ok<'/api/v1/admin/conversations/{id}', 'get'>['messages'][number]['attachments']>[number];

/** An email's files, through their short-lived links; images shown inline. */
function Attachments({ files }: { files: File[] }) {
  return (
    <ul className="attachments" aria-label="Attachments">
      {files.map((f) => (
        <li key={f.id} className="attachment">
          {INLINE_IMAGE.test(f.contentType) && <img src={f.url} alt={f.name} className="attachment-image" />}
          <a href={f.url}>{f.name}</a> <span className="muted small">{Math.max(1, Math.round(f.size / 1024))} KB</span>
        </li>
      ))}
    </ul>
  );
}

/** Where the agent's reply goes, as the reply box says it (the detail's `replyTo`, read again every few seconds). */
function goesTo(channel: string, to: { live: boolean; email: string | null }): string {
  if (channel === 'email') return `Emailed as you to ${to.email ?? 'the customer'}, threaded with their mail.`;
  if (to.live) return 'Sent as you to the chat: the customer has it open now.';
  if (to.email)
    return `The customer is not in the chat now: your reply goes to the chat and by email to ${to.email}, threaded; their answer comes back here.`;
  return 'The customer is not in the chat now and left no address: they see your reply when they come back to the widget.';
}

function ReplyBox({
  id,
  values,
  goesTo,
}: {
  id: string;
  values: Partial<Record<ReplyPlaceholder, string>>;
  goesTo: string;
}) {
  const { api } = useApp();
  const member = useMember();
  const signalTyping = useSignalTyping(id);
  const qc = useQueryClient();
  const [content, setContent] = useState('');
  // The first reply of a member who never chose a name asks for one: customers read it on every reply.
  const [naming, setNaming] = useState(false);
  const [name, setName] = useState(member.displayName ?? '');
  // A saved reply that names the agent, waiting for the name (asked before it is filled in).
  const [resume, setResume] = useState<((name: string) => void) | null>(null);
  const send = useMutation({
    mutationFn: (content: string) =>
      ok(api.POST('/api/v1/admin/conversations/{id}/messages', { params: { path: { id } }, body: { content } })),
    onSuccess: () => {
      setContent('');
      void qc.invalidateQueries({ queryKey: ['conversation', id] });
      void qc.invalidateQueries({ queryKey: ['tickets'] });
    },
  });
  const rename = useMutation({
    mutationFn: (displayName: string) => ok(api.PATCH('/api/v1/admin/auth/me', { body: { displayName } })),
    onSuccess: (me) => {
      qc.setQueryData(['me'], me);
      setNaming(false);
      if (resume) {
        resume(me.displayName ?? name.trim());
        setResume(null);
      } else send.mutate(content);
    },
  });
  const errors = useFieldErrors(send.error, { content: 'Reply' });
  const nameErrors = useFieldErrors(rename.error, { displayName: 'Name customers see' });
  const submit = (e: FormEvent) => {
    e.preventDefault();
    if (naming) rename.mutate(name.trim());
    else if (!content.trim()) return;
    else if (!member.displayNameChosen) setNaming(true);
    else send.mutate(content);
  };
  return (
    <form className="reply" onSubmit={submit}>
      <Field label="Reply to the customer" {...errors.field('content')} hint={`${goesTo} Type / for a saved reply.`}>
        {(p) => (
          <ReplyTextarea
            {...p}
            rows={3}
            maxLength={5000}
            value={content}
            values={values}
            enabled
            askName={
              member.displayNameChosen
                ? undefined
                : (then) => {
                    setResume(() => then);
                    setNaming(true);
                  }
            }
            onChange={(v) => {
              setContent(v);
              if (v.trim()) signalTyping();
            }}
          />
        )}
      </Field>
      <FormError error={send.error} fields={errors} />
      {naming ? (
        <fieldset className="name-prompt">
          <legend>Your name on replies</legend>
          <Field
            label="Name customers see"
            {...nameErrors.field('displayName')}
            hint="It goes out with this reply and every one after. You can change it later in your profile."
          >
            {(p) => (
              <input
                {...p}
                value={name}
                onChange={(e) => setName(e.target.value)}
                maxLength={60}
                autoComplete="name"
                // biome-ignore lint/a11y/noAutofocus: the prompt opened from the Send button; the name is what it asks for
                autoFocus
                required
              />
            )}
          </Field>
          <FormError error={rename.error} fields={nameErrors} />
          <div className="row">
            <button type="submit" className="primary" disabled={rename.isPending || send.isPending || !name.trim()}>
              {resume ? 'Save the name' : 'Save the name and send'}
            </button>
            <button
              type="button"
              onClick={() => {
                setNaming(false);
                setResume(null);
              }}
            >
              Cancel
            </button>
          </div>
        </fieldset>
      ) : (
        <button type="submit" className="primary" disabled={send.isPending || !content.trim()}>
          Send reply
        </button>
      )}
    </form>
  );
}
