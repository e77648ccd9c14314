import { createHash } from 'node:crypto';

// Every key string of the table is built here and nowhere else (see table.ts for the patterns).

const T = (tenantId: string) => `TENANT#${tenantId}`;

export interface Key {
  pk: string;
  sk: string;
}

export const keys = {
  tenant: (tenantId: string): Key => ({ pk: T(tenantId), sk: 'TENANT' }),

  intent: (tenantId: string, intentId: string): Key => ({ pk: T(tenantId), sk: `INTENT#${intentId}` }),
  intentPrefix: (tenantId: string) => ({ pk: T(tenantId), skPrefix: 'INTENT#' }),
  intentName: (tenantId: string, name: string): Key => ({ pk: T(tenantId), sk: `INTENTNAME#${name}` }),
  /** One item whose attribute `h_<intentId>` counts that intent's hits; ADD never resurrects a deleted intent. */
  intentHits: (tenantId: string): Key => ({ pk: T(tenantId), sk: 'INTENTHITS' }),
  /** Marks that the tenant's starter intents were reviewed once (read with the intents: its sort key begins with INTENT). */
  starterReview: (tenantId: string): Key => ({ pk: T(tenantId), sk: 'INTENTREVIEW' }),

  /** An article as written (Markdown and all); listed newest first on gsi1, by status on gsi2. */
  article: (tenantId: string, articleId: string): Key => ({ pk: T(tenantId), sk: `ARTICLE#${articleId}` }),
  articlesIndex: (tenantId: string) => ({ gsi1pk: `${T(tenantId)}#ARTICLES` }),
  articlesByStatusIndex: (tenantId: string, status: string) => ({ gsi2pk: `${T(tenantId)}#ARTICLES#${status}` }),
  /** Guards one article per URL; keyed by a hash, as a URL may be longer than a sort key. */
  articleUrl: (tenantId: string, url: string): Key => ({
    pk: T(tenantId),
    sk: `ARTICLEURL#${createHash('sha256').update(new URL(url).href).digest('base64url')}`,
  }),
  /** Like intentHits: attribute `h_<articleId>` counts the answers an article gave, on sharded items. */
  articleHits: (tenantId: string): Key => ({ pk: T(tenantId), sk: 'ARTICLEHITS' }),
  /** The searchable form of every article (plain-text passages, no Markdown): what the chat's index is built from. */
  searchablePartition: (tenantId: string) => `${T(tenantId)}#KB`,
  searchable: (tenantId: string, articleId: string): Key => ({ pk: keys.searchablePartition(tenantId), sk: articleId }),

  /**
   * The sentence vectors of a tenant's texts, one item per text keyed by a hash of it (a text may
   * be longer than a sort key), and the indexer's record of what it has embedded (`VECSTATE`).
   */
  vectorPartition: (tenantId: string) => `${T(tenantId)}#VEC`,
  vector: (tenantId: string, textHash: string): Key => ({ pk: keys.vectorPartition(tenantId), sk: textHash }),
  vectorState: (tenantId: string): Key => ({ pk: T(tenantId), sk: 'VECSTATE' }),
  /** The vectors of the starter content, the same for every tenant: stored once, not per tenant. */
  sharedVectorPartition: () => 'VECTORS#STARTER',
  sharedVector: (textHash: string): Key => ({ pk: keys.sharedVectorPartition(), sk: textHash }),

  /** A taught example, in one partition per target kind (the `none` ones are what the chat's model reads). */
  examplePartition: (tenantId: string, kind: string) => `${T(tenantId)}#NLUEX#${kind}`,
  example: (tenantId: string, kind: string, exampleId: string): Key => ({
    pk: keys.examplePartition(tenantId, kind),
    sk: exampleId,
  }),
  examplesIndex: (tenantId: string) => ({ gsi1pk: `${T(tenantId)}#NLUEX` }),
  /** One example per message and target: keyed by a hash of both, as a message may be longer than a sort key. */
  exampleGuard: (tenantId: string, target: string, message: string): Key => ({
    pk: T(tenantId),
    sk: `NLUEXKEY#${createHash('sha256').update(`${target}\n${message}`).digest('base64url')}`,
  }),
  /** Customers' messages the assistant did not answer well, by day: `sk` is day, time, message id. */
  unansweredPartition: (tenantId: string) => `${T(tenantId)}#UNANSWERED`,
  unanswered: (tenantId: string, createdAt: string, messageId: string): Key => ({
    pk: keys.unansweredPartition(tenantId),
    sk: `${createdAt.slice(0, 10)}#${createdAt}#${messageId}`,
  }),

  integration: (tenantId: string, id: string): Key => ({ pk: T(tenantId), sk: `INTEGRATION#${id}` }),
  integrationPrefix: (tenantId: string) => ({ pk: T(tenantId), skPrefix: 'INTEGRATION#' }),
  /** An action integration's recent calls (`CALL#` + a ULID, so newest first by key) and its `action.failed` guard. */
  actionCallsPartition: (tenantId: string, integrationId: string) => `${T(tenantId)}#ACTIONCALLS#${integrationId}`,
  actionCall: (tenantId: string, integrationId: string, callId: string): Key => ({
    pk: keys.actionCallsPartition(tenantId, integrationId),
    sk: `CALL#${callId}`,
  }),
  actionFailedGuard: (tenantId: string, integrationId: string): Key => ({
    pk: keys.actionCallsPartition(tenantId, integrationId),
    sk: 'FAILEDEVENT',
  }),

  /** Deliveries of one integration; ids are `dlv_` + the event's ULID, so the partition sorts by event time. */
  delivery: (tenantId: string, integrationId: string, deliveryId: string): Key => ({
    pk: `${T(tenantId)}#DELIVERIES#${integrationId}`,
    sk: deliveryId,
  }),
  /**
   * A delivery's body, written once beside it (`BODY#` sorts before every `dlv_`): the delivery
   * item, updated at every attempt, stays small, as an update bills the whole item's size.
   */
  deliveryBody: (tenantId: string, integrationId: string, deliveryId: string): Key => ({
    pk: `${T(tenantId)}#DELIVERIES#${integrationId}`,
    sk: `BODY#${deliveryId}`,
  }),
  deliveriesByStatusIndex: (tenantId: string, integrationId: string, status: string) => ({
    gsi2pk: `${T(tenantId)}#DELIVERIES#${integrationId}#${status}`,
  }),

  member: (tenantId: string, memberId: string): Key => ({ pk: T(tenantId), sk: `MEMBER#${memberId}` }),
  memberPrefix: (tenantId: string) => ({ pk: T(tenantId), skPrefix: 'MEMBER#' }),
  invitationsByEmail: (email: string) => ({ gsi1pk: `EMAIL#${email.toLowerCase()}` }),

  user: (sub: string): Key => ({ pk: `USER#${sub}`, sk: 'USER' }),
  widgetKey: (hash: string): Key => ({ pk: `WIDGETKEY#${hash}`, sk: 'WIDGETKEY' }),

  conversationPartition: (tenantId: string, conversationId: string) => `${T(tenantId)}#CONV#${conversationId}`,
  conversation: (tenantId: string, conversationId: string): Key => ({
    pk: keys.conversationPartition(tenantId, conversationId),
    sk: 'CONV',
  }),
  /** Messages sort by time, then user before assistant (seq), then id. */
  message: (tenantId: string, conversationId: string, createdAt: string, seq: number, messageId: string): Key => ({
    pk: keys.conversationPartition(tenantId, conversationId),
    sk: `MSG#${createdAt}#${seq}#${messageId}`,
  }),
  conversationTicketRef: (tenantId: string, conversationId: string, ticketId: string): Key => ({
    pk: keys.conversationPartition(tenantId, conversationId),
    sk: `TICKET#${ticketId}`,
  }),
  rateWindow: (tenantId: string, conversationId: string, minute: string): Key => ({
    pk: keys.conversationPartition(tenantId, conversationId),
    sk: `RATE#${minute}`,
  }),
  conversationsIndex: (tenantId: string) => ({ gsi1pk: `${T(tenantId)}#CONVS` }),
  conversationsByStatusIndex: (tenantId: string, status: string) => ({ gsi2pk: `${T(tenantId)}#CONVS#${status}` }),
  /** A verified visitor's conversations (any device); keyed by a hash, as a user id is the site's own free text. */
  visitorConversationsIndex: (tenantId: string, userId: string) => ({
    gsi3pk: `${T(tenantId)}#VISITOR#${createHash('sha256').update(userId).digest('base64url')}`,
  }),

  /** A customer's conversations by the email address they gave (export and erasure); keyed by a hash of the address. */
  customerEmailPartition: (tenantId: string, email: string) =>
    `${T(tenantId)}#CUSTOMER#${createHash('sha256').update(email.toLowerCase()).digest('base64url')}`,
  customerEmailLink: (tenantId: string, email: string, conversationId: string): Key => ({
    pk: keys.customerEmailPartition(tenantId, email),
    sk: `CONV#${conversationId}`,
  }),

  /** The tenants that keep conversations a limited time (the retention job reads this one partition). */
  retentionPartition: () => 'RETENTION',
  retention: (tenantId: string): Key => ({ pk: 'RETENTION', sk: T(tenantId) }),

  /** Tenants being deleted (the purge job reads this one partition; each item holds its progress). */
  purgePartition: () => 'PURGE',
  purge: (tenantId: string): Key => ({ pk: 'PURGE', sk: T(tenantId) }),
  /** The deletion a user requested, readable by them once unlinked (GET /admin/tenant/deletion). */
  deletionStatus: (sub: string): Key => ({ pk: `DELETION#${sub}`, sk: 'STATUS' }),
  /** A tenant's export in the objects bucket (the bucket's lifecycle removes `exports/` after a day). */
  tenantExportObject: (tenantId: string, id: string) => `exports/${tenantId}/${id}.jsonl`,
  /** A tenant's export job: its status and progress (TTL: a day, as the file). */
  tenantExport: (tenantId: string, id: string): Key => ({ pk: T(tenantId), sk: `EXPORT#${id}` }),

  ticket: (tenantId: string, ticketId: string): Key => ({ pk: `${T(tenantId)}#TICKET#${ticketId}`, sk: 'TICKET' }),
  /** The tenant's last ticket number; a new ticket's transaction moves it on, conditional on the value read. */
  ticketCounter: (tenantId: string): Key => ({ pk: T(tenantId), sk: 'TICKETCOUNTER' }),
  /** Number -> ticket id; its put's condition also makes a number impossible to share. */
  ticketNumber: (tenantId: string, n: number): Key => ({ pk: T(tenantId), sk: `TICKETNUMBER#${n}` }),
  ticketsIndex: (tenantId: string) => ({ gsi1pk: `${T(tenantId)}#TICKETS` }),
  ticketsByStatusIndex: (tenantId: string, status: string) => ({ gsi2pk: `${T(tenantId)}#TICKETS#STATUS#${status}` }),
  ticketsByPriorityIndex: (tenantId: string, priority: string) => ({
    gsi3pk: `${T(tenantId)}#TICKETS#PRIORITY#${priority}`,
  }),

  /** A ticket's audit entries live in the ticket's partition, so its detail is one Query; others in the tenant's audit partition. */
  audit: (tenantId: string, auditId: string, target: { type: string; id: string }): Key => ({
    pk: target.type === 'ticket' ? keys.ticket(tenantId, target.id).pk : `${T(tenantId)}#AUDIT`,
    sk: auditId,
  }),
  auditIndex: (tenantId: string) => ({ gsi1pk: `${T(tenantId)}#AUDIT` }),
  auditByCategoryIndex: (tenantId: string, category: string) => ({ gsi2pk: `${T(tenantId)}#AUDIT#${category}` }),

  statsPartition: (tenantId: string) => `${T(tenantId)}#STATS`,
  statsDay: (tenantId: string, day: string): Key => ({ pk: keys.statsPartition(tenantId), sk: `DAY#${day}` }),
  /** Tenant-wide "now" counters (open tickets). `TOTAL` sorts after every `DAY#...`, so the /stats
   *  Query from `DAY#from` to `TOTAL` reads the days and these counters in one round trip. */
  counters: (tenantId: string): Key => ({ pk: keys.statsPartition(tenantId), sk: 'TOTAL' }),

  /** Per conversation: a conversation's events share a partition, so the stream keeps their order. */
  event: (tenantId: string, eventId: string, conversationId?: string): Key => ({
    pk: `${T(tenantId)}#EVENTS${conversationId ? `#${conversationId}` : ''}`,
    sk: `EVT#${eventId}`,
  }),
  /**
   * Live connections, partitioned by who they are for: a conversation's customer sockets, and the
   * tenant's member sockets. Pushing an event reads the two partitions it concerns and no other.
   * Each partition also holds its sockets' counts (`COUNT` per conversation, `COUNT#<user>` per member).
   */
  liveConversation: (tenantId: string, conversationId: string) => ({
    pk: `${T(tenantId)}#LIVE#CONV#${conversationId}`,
  }),
  liveMembers: (tenantId: string) => ({ pk: `${T(tenantId)}#LIVE#MEMBERS` }),
  liveCount: (pk: string, userId?: string): Key => ({ pk, sk: userId ? `COUNT#${userId}` : 'COUNT' }),
  liveConnection: (pk: string, connectionId: string): Key => ({ pk, sk: `CONN#${connectionId}` }),
  /** A tenant's customer sockets on gsi1: what a widget key rotation sweeps. */
  liveCustomersIndex: (tenantId: string) => ({ gsi1pk: `${T(tenantId)}#LIVE#CUSTOMERS` }),
  /** $disconnect knows only the connection id: this lookup names its tenant. */
  liveConnectionLookup: (connectionId: string): Key => ({ pk: `LIVECONN#${connectionId}`, sk: 'LIVECONN' }),
  /**
   * A conversation due to be judged "resolved by the assistant" in a 10-minute slot (every tenant's
   * in one partition, so that the scheduled job finds them without a Scan; ids only, TTL).
   */
  resolutionDue: (slot: string, tenantId: string, conversationId: string): Key => ({
    pk: `RESOLVEDUE#${slot}`,
    sk: `${tenantId}#${conversationId}`,
  }),
  liveTicket: (tenantId: string, hash: string): Key => ({ pk: `${T(tenantId)}#LIVETICKET#${hash}`, sk: 'LIVETICKET' }),

  /**
   * A fixed-window counter of a limit of CONTRACT section 6 (`name` says what it counts and for
   * whom, e.g. `newconv#<address>`); each counter has its own partition so none grows hot for others.
   */
  limitWindow: (tenantId: string, name: string, window: string): Key => ({
    pk: `${T(tenantId)}#LIMIT#${name}`,
    sk: `WINDOW#${window}`,
  }),

  /** A saved reply of the team; its shortcut is unique per tenant through a guard item. */
  savedReply: (tenantId: string, id: string): Key => ({ pk: T(tenantId), sk: `SAVEDREPLY#${id}` }),
  savedReplyPrefix: (tenantId: string) => ({ pk: T(tenantId), skPrefix: 'SAVEDREPLY#' }),
  savedReplyShortcut: (tenantId: string, shortcut: string): Key => ({
    pk: T(tenantId),
    sk: `REPLYSHORTCUT#${shortcut}`,
  }),

  /** The tenant's labels with their counts, one item per label (`key`: the label folded for comparison). */
  labelsPartition: (tenantId: string) => `${T(tenantId)}#LABELS`,
  label: (tenantId: string, key: string): Key => ({ pk: keys.labelsPartition(tenantId), sk: `LABEL#${key}` }),
  /** The conversations that carry a label, newest first; keyed by a hash, as a label is free text. */
  labelledPartition: (tenantId: string, key: string) =>
    `${T(tenantId)}#LABELLED#${createHash('sha256').update(key).digest('base64url')}`,
  labelled: (tenantId: string, key: string, createdAt: string, conversationId: string): Key => ({
    pk: keys.labelledPartition(tenantId, key),
    sk: timeSortKey(createdAt, conversationId),
  }),

  idempotency: (tenantId: string, route: string, key: string): Key => ({
    pk: `${T(tenantId)}#IDEM#${route}#${key}`,
    sk: 'IDEM',
  }),
  /** The stored answers (idempotency records) of a conversation's requests: erasing its customer deletes them. */
  conversationRepliesIndex: (tenantId: string, conversationId: string) => ({
    gsi1pk: `${T(tenantId)}#CONV#${conversationId}#IDEM`,
  }),
};

/** Sort key of index entries that list newest first: time, then id to break ties. */
export const timeSortKey = (createdAt: string, id: string) => `${createdAt}#${id}`;

/** The sort key of a text's vector: a hash, as a text may be longer than a sort key (128 bits). */
export const vectorHash = (text: string) => createHash('sha256').update(text).digest('base64url').slice(0, 22);

/** Sort-key bounds of the per-day stats items (all shards) of an inclusive day range. */
/** From the first day of a period through the counters item (days after `to` come back too and are dropped). */
export const statsDayRange = (tenantId: string, from: string, to: string) => ({
  pk: keys.statsPartition(tenantId),
  skFrom: `DAY#${from}`,
  skTo: keys.counters(tenantId).sk,
  lastDay: to,
});

/** Strips the table's key and index attributes from an item before it leaves the data layer. */
export function clean<T>(item: Record<string, unknown>): T {
  const { pk, sk, gsi1pk, gsi1sk, gsi2pk, gsi2sk, gsi3pk, gsi3sk, type, ...rest } = item;
  return rest as T;
}

/** The key attributes of an item as seen from the table or an index: what a LastEvaluatedKey holds. */
export const keyAttributes = (index?: 'gsi1' | 'gsi2' | 'gsi3') =>
  index ? ['pk', 'sk', `${index}pk`, `${index}sk`] : ['pk', 'sk'];

// Admin API items (members, settings, integrations). Appended: one guard per invited or member email.
export const adminKeys = {
  /** Guards one member or invitation per email in a tenant; `MEMBEREMAIL#` never matches the `MEMBER#` prefix. */
  memberEmail: (tenantId: string, email: string): Key => ({
    pk: T(tenantId),
    sk: `MEMBEREMAIL#${email.toLowerCase()}`,
  }),
  invitationsIndexSk: (tenantId: string, memberId: string) => `${T(tenantId)}#${memberId}`,
};

// The email channel (shared/data/email.ts).
export const emailKeys = {
  /** Inbound address -> tenant: `<slug>@<inbound domain>`; the put's condition makes a slug unique. */
  slug: (slug: string): Key => ({ pk: `SLUG#${slug}`, sk: 'SLUG' }),
  /** A Message-ID seen or sent in a conversation -> that conversation; hashed, as a Message-ID is free text. */
  thread: (tenantId: string, messageId: string): Key => ({
    pk: `${T(tenantId)}#EMAILREF#${createHash('sha256').update(messageId).digest('base64url')}`,
    sk: 'REF',
  }),
  /** A conversation's reply address token (`<slug>+<token>@…`) -> the conversation. */
  replyToken: (tenantId: string, token: string): Key => ({ pk: `${T(tenantId)}#EMAILTOKEN#${token}`, sk: 'TOKEN' }),
  /** Addresses that bounced hard or complained: the tenant sends them nothing more. */
  suppressedPartition: (tenantId: string) => `${T(tenantId)}#SUPPRESSED`,
  suppressed: (tenantId: string, email: string): Key => ({ pk: `${T(tenantId)}#SUPPRESSED`, sk: email.toLowerCase() }),
  /** An outgoing message's delivery status, beside its message in the conversation's partition. */
  delivery: (tenantId: string, conversationId: string, messageId: string): Key => ({
    pk: keys.conversationPartition(tenantId, conversationId),
    sk: `EMAILOUT#${messageId}`,
  }),
  /** Object keys in the mail bucket: SES's inbound mail, and a tenant's stored parts. */
  inboundObject: (id: string) => `inbound/${id}`,
  /** A tenant's own copy of a message that reached several tenants: one's erasure leaves the others' alone. */
  inboundCopy: (tenantId: string, rawKey: string) => `tenants/${tenantId}/${rawKey}`,
  attachmentObject: (tenantId: string, conversationId: string, attachmentId: string) =>
    `tenants/${tenantId}/${conversationId}/${attachmentId}`,
};
