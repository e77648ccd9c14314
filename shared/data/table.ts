// The one table's shape, defined once: the CDK stack and the local runtime both build it from here.
//
// Access patterns (every one a GetItem, a Query or a transaction; never a Scan):
//   tenant, its settings and intents version   GetItem   pk TENANT#t            sk TENANT
//   intents of a tenant (+ their hit counts)    Query     pk TENANT#t            sk begins_with INTENT
//   intent name uniqueness                      guard     pk TENANT#t            sk INTENTNAME#name
//   the starter review ran (read with intents)  mark      pk TENANT#t            sk INTENTREVIEW
//   taught examples of a kind, newest first   Query     pk TENANT#t#NLUEX#kind  sk ex_<ulid> (the none ones: the chat's model)
//   taught examples newest first               Query     gsi1 TENANT#t#NLUEX
//   one example per message and target         guard     pk TENANT#t            sk NLUEXKEY#sha256(target, message)
//   unanswered messages of a period            Query     pk TENANT#t#UNANSWERED sk between day#... (newest first, capped; TTL)
//   integrations, members of a tenant           Query     pk TENANT#t            sk begins_with INTEGRATION# / MEMBER#
//   article (Markdown as written)              GetItem   pk TENANT#t            sk ARTICLE#id
//   articles newest first / by status          Query     gsi1 TENANT#t#ARTICLES / gsi2 TENANT#t#ARTICLES#status
//   article URL uniqueness, import by URL      BatchGet  pk TENANT#t            sk ARTICLEURL#sha256(url)
//   article hit counts                         Query     pk TENANT#t            sk begins_with ARTICLEHITS
//   searchable articles (passages, no Markdown) Query    pk TENANT#t#KB         sk articleId (chat index, admin q)
//   invitations by email                        Query     gsi1 EMAIL#email
//   user sub -> membership                      GetItem   pk USER#sub            sk USER
//   widget key hash -> tenant                   GetItem   pk WIDGETKEY#hash      sk WIDGETKEY
//   conversation + messages + ticket refs       Query     pk TENANT#t#CONV#c     (sk CONV, MSG#..., TICKET#...)
//   conversations newest first / by status      Query     gsi1 TENANT#t#CONVS / gsi2 TENANT#t#CONVS#status
//   a verified visitor's conversations        Query     gsi3 TENANT#t#VISITOR#sha256(userId)
//   ticket number counter, number -> ticket    GetItem   pk TENANT#t            sk TICKETCOUNTER / TICKETNUMBER#n
//   tickets newest first / status / priority    Query     gsi1 TENANT#t#TICKETS / gsi2 ...#STATUS#s / gsi3 ...#PRIORITY#p
//   saved replies of a tenant                   Query     pk TENANT#t            sk begins_with SAVEDREPLY#
//   saved reply shortcut uniqueness            guard     pk TENANT#t            sk REPLYSHORTCUT#shortcut
//   labels of a tenant with counts              Query     pk TENANT#t#LABELS     sk LABEL#folded label
//   conversations of a label, newest first     Query     pk TENANT#t#LABELLED#sha256(label) sk createdAt#conversationId
//   audit newest first / by category            Query     gsi1 TENANT#t#AUDIT / gsi2 TENANT#t#AUDIT#cat
//   ticket + its audit trail                    Query     pk TENANT#t#TICKET#id  (sk TICKET, aud_...)
//   deliveries of an integration, newest first Query     pk TENANT#t#DELIVERIES#i (sk dlv_<ulid>; TTL 30 days)
//   ... each one's body (written once)          GetItem   pk TENANT#t#DELIVERIES#i sk BODY#dlv_<ulid> (TTL 30 days)
//   ... by status                              Query     gsi2 TENANT#t#DELIVERIES#i#status
//   stats per day for a date range + counters   Query     pk TENANT#t#STATS      sk between DAY#from and TOTAL
//   idempotency record, rate-limit window       GetItem   pk TENANT#t#IDEM#key / TENANT#t#CONV#c sk RATE#minute (TTL)
//   a conversation's stored answers (erasure)  Query     gsi1 TENANT#t#CONV#c#IDEM (the idempotency records of its requests)
//   events (the outbox the stream carries)      Put only  pk TENANT#t#EVENTS#c   sk EVT#ulid (TTL); per conversation, so
//                                                          a conversation's events keep their order on the stream
//   live connections of a tenant                Query     pk TENANT#t#LIVE       sk CONN#connectionId (TTL)
//   a tenant's customer sockets (key rotation)  Query     gsi1 TENANT#t#LIVE#CUSTOMERS (sk the connection id)
//   connection id -> tenant (for $disconnect)   GetItem   pk LIVECONN#id         sk LIVECONN (TTL)
//   conversations due for the resolution job    Query     pk RESOLVEDUE#slot     sk tenantId#conversationId (TTL)
//   one-time live ticket                        Delete    pk TENANT#t#LIVETICKET#hash sk LIVETICKET (TTL)
//   a tenant's export job (status, progress)    GetItem   pk TENANT#t            sk EXPORT#exp_ulid (TTL a day)

export const TTL_ATTRIBUTE = 'expiresAt';

export const INDEXES = ['gsi1', 'gsi2', 'gsi3'] as const;
export type IndexName = (typeof INDEXES)[number];

export const tableDefinition = {
  partitionKey: 'pk',
  sortKey: 'sk',
  indexes: INDEXES.map((name) => ({ name, partitionKey: `${name}pk`, sortKey: `${name}sk` })),
  ttlAttribute: TTL_ATTRIBUTE,
  /** The stream carries new items to the event dispatcher; it reads only event items' new images. */
  stream: 'NEW_IMAGE',
} as const;

/** The CreateTable input that DynamoDB Local gets (the CDK stack maps the same definition). */
export function createTableInput(tableName: string) {
  const keyNames = [
    tableDefinition.partitionKey,
    tableDefinition.sortKey,
    ...tableDefinition.indexes.flatMap((i) => [i.partitionKey, i.sortKey]),
  ];
  return {
    TableName: tableName,
    BillingMode: 'PAY_PER_REQUEST' as const,
    AttributeDefinitions: keyNames.map((AttributeName) => ({ AttributeName, AttributeType: 'S' as const })),
    KeySchema: [
      { AttributeName: tableDefinition.partitionKey, KeyType: 'HASH' as const },
      { AttributeName: tableDefinition.sortKey, KeyType: 'RANGE' as const },
    ],
    GlobalSecondaryIndexes: tableDefinition.indexes.map((i) => ({
      IndexName: i.name,
      KeySchema: [
        { AttributeName: i.partitionKey, KeyType: 'HASH' as const },
        { AttributeName: i.sortKey, KeyType: 'RANGE' as const },
      ],
      Projection: { ProjectionType: 'ALL' as const },
    })),
    StreamSpecification: { StreamEnabled: true, StreamViewType: tableDefinition.stream },
  };
}
