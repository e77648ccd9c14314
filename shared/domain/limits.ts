// The limits of CONTRACT section 6 that keep one tenant, one key or one address from taking more
// than its share: caps on what a tenant keeps, and per-minute windows on what the public widget
// key lets anyone start. It imports nothing, so that the edge's schemas and route descriptions read
// these caps without loading a runtime module; windows.ts counts the windows.

export const LIMITS = {
  userMessagesPerConversation: 1000,
  messagesPerMinute: 30,
  integrationsPerTenant: 25,
  /** Members and pending invitations together. */
  membersPerTenant: 500,
  /** Per widget key (tenant) and source address; settings `widget.newConversationsPerMinute` (1 to 10,000) replaces it. */
  newConversationsPerAddress: 60,
  newConversationsPerKey: 1000,
  escalationsPerAddress: 30,
  ratingsPerConversation: 5,
  customerSocketsPerConversation: 5,
  socketsPerMember: 20,
  /** A conversation's labels: its PATCH's schema refuses more. */
  labelsPerConversation: 10,
  /** Distinct labels in use in a tenant: keeps GET /labels one small read. */
  labelsPerTenant: 1000,
} as const;
