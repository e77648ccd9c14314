import { useQuery } from '@tanstack/react-query';
import { Link } from 'react-router';
import { ok, type Ok } from '../api/client.ts';
import { useApp, useMember } from '../context.tsx';
import { atLeast } from '../roles.ts';
import { Badge, counted, Empty, ErrorState, Loading, When } from '../ui/index.tsx';

// Who the customer is, wherever the dashboard names a conversation or a ticket: the visitor's name
// and email with their verification, and a panel of the same verified visitor's other conversations.

export type Visitor = Ok<'/api/v1/admin/conversations/{id}', 'get'>['conversation']['visitor'];

/** "Verified" when the site signed the visitor's id; typed facts are "Unverified". */
export function VerifiedMark({ visitor }: { visitor: Visitor }) {
  if (!visitor) return null;
  return visitor.verified ? (
    <span className="badge b-verified" title="The site signed this customer's id">
      Verified
    </span>
  ) : (
    <span className="badge b-unverified" title="Typed or passed without a signature: it may not be who it says">
      Unverified
    </span>
  );
}

/** The conversation's title (the visitor's name or email, else "Visitor 1234") and, below it, what else is known. */
export function VisitorLine({ title, visitor }: { title?: string; visitor: Visitor }) {
  const extra =
    visitor &&
    [visitor.name && visitor.email ? visitor.email : null, visitor.userId ? `id ${visitor.userId}` : null]
      .filter(Boolean)
      .join(' · ');
  return (
    <>
      {title && (
        <>
          <span className="visitor-title">{title}</span>{' '}
        </>
      )}
      <VerifiedMark visitor={visitor} />
      {extra ? <span className="muted small visitor-extra"> {extra}</span> : null}
    </>
  );
}

/** The customer panel of a conversation: the visitor's facts, and their other conversations (either channel) when verified. */
export function CustomerPanel({ conversationId, visitor }: { conversationId: string; visitor: Visitor }) {
  return (
    <section className="customer" aria-labelledby="customer-h">
      <h3 id="customer-h">Customer</h3>
      {!visitor ? (
        <p className="muted">Anonymous: the site did not say who this is, and no email was left.</p>
      ) : (
        <>
          <dl className="facts">
            <div>
              <dt>Name</dt>
              <dd>{visitor.name ?? '—'}</dd>
            </div>
            <div>
              <dt>Email</dt>
              <dd>
                {visitor.email ? (
                  <>
                    {visitor.email}{' '}
                    {!visitor.emailVerified && <span className="muted small">(address not verified)</span>}
                  </>
                ) : (
                  '—'
                )}
              </dd>
            </div>
            <div>
              <dt>User id</dt>
              <dd>{visitor.userId ? <code>{visitor.userId}</code> : '—'}</dd>
            </div>
            <div>
              <dt>Identity</dt>
              <dd>
                <VerifiedMark visitor={visitor} />
              </dd>
            </div>
          </dl>
          {visitor.verified && visitor.userId ? (
            <OtherConversations who={{ userId: visitor.userId }} current={conversationId} />
          ) : visitor.verified && visitor.emailVerified && visitor.email ? (
            <OtherConversations who={{ email: visitor.email }} current={conversationId} />
          ) : (
            <p className="muted small">Unverified facts link no other conversation.</p>
          )}
        </>
      )}
    </section>
  );
}

/** The customer's other conversations in both channels: a verified visitor's, and the email threads of an address verified on both sides. */
function OtherConversations({ who, current }: { who: { userId: string } | { email: string }; current: string }) {
  const { api } = useApp();
  const list = useQuery({
    queryKey: ['conversations', 'customer', who],
    queryFn: () => ok(api.GET('/api/v1/admin/conversations', { params: { query: who } })),
  });
  if (list.isPending) return <Loading label="Loading their conversations…" />;
  if (list.isError) return <ErrorState error={list.error} retry={() => void list.refetch()} />;
  const others = list.data.items.filter((c) => c.id !== current);
  return (
    <>
      <h4>Their other conversations</h4>
      {others.length === 0 ? (
        <Empty>None: this is their only conversation.</Empty>
      ) : (
        <ul className="list compact">
          {others.map((c) => (
            <li key={c.id}>
              <Link to={`/inbox/${c.id}`} className="list-main">
                {c.channel === 'email' ? `Email: ${c.title}` : c.lastMessagePreview || 'Conversation'}
              </Link>
              <span className="list-meta">
                <Badge value={c.stage ?? c.status} /> {counted(c.messageCount, 'message')} · <When iso={c.updatedAt} />
              </span>
            </li>
          ))}
        </ul>
      )}
    </>
  );
}

/** `#12`, the number the customer was given; a ticket made before numbering shows its id's end. */
export const ticketName = (t: { id: string; number: number | null }) =>
  t.number != null ? `#${t.number}` : `${t.id.slice(0, 10)}…`;

/** The customer's rating and what they wrote with it; a low one stands out. */
export function RatingNote({ rating }: { rating: { score: number; comment: string | null; createdAt: string } }) {
  return (
    <p className={`rating${rating.score <= 2 ? ' rating-low' : ''}`}>
      <strong>Rated {rating.score}/5</strong> by the customer{' '}
      <span className="small">
        (<When iso={rating.createdAt} />)
      </span>
      {rating.comment ? <>: “{rating.comment}”</> : ', without a comment.'}
    </p>
  );
}

/** An assignee as people read them: "You", a member's name (admins read the member list), else "a teammate"; "Unassigned". */
export function useAssigneeName() {
  const { api } = useApp();
  const member = useMember();
  const members = useQuery({
    queryKey: ['members'],
    queryFn: () => ok(api.GET('/api/v1/admin/members')),
    enabled: atLeast(member.role, 'admin'),
  });
  return (userId: string | null) =>
    userId === null
      ? 'Unassigned'
      : userId === member.sub
        ? 'You'
        : (members.data?.items.find((m) => m.userId === userId)?.displayName ?? 'A teammate');
}
