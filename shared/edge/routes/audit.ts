import * as z from 'zod/mini';
import { ACTOR_TYPES, AUDIT_CATEGORIES } from '#shared/core/vocabulary.ts';
import { declareAdmin } from '../route.ts';
import { pageQuery } from '../schema.ts';
import { Page, Timestamp } from './common.ts';

export const AuditCategory = z.enum(AUDIT_CATEGORIES);
export const ListAuditQuery = z.strictObject({ category: z.optional(AuditCategory), ...pageQuery });

export const AuditEntry = z.object({
  id: z.string(),
  category: AuditCategory,
  action: z.string(),
  actor: z.object({ type: z.enum(ACTOR_TYPES), id: z.string() }),
  target: z.object({ type: z.string(), id: z.string() }),
  changes: z.record(z.string(), z.object({ from: z.unknown(), to: z.unknown() })),
  createdAt: Timestamp,
  actorName: z
    .string()
    .check(
      z.describe(
        "who made the change, as people read it: a member's display name, `the chat widget`, " +
          '`the service`, or `a former member`',
      ),
    ),
  targetName: z
    .nullable(z.string())
    .check(
      z.describe(
        "what the target is called now: a ticket's `#number`, an intent's name, an " +
          "article's or saved reply's title, an integration's or member's name; null when it is gone or has no name",
      ),
    ),
  names: z
    .record(z.string(), z.string())
    .check(
      z.describe(
        'what `changes` names by id, with its name: members (an assignee) by display ' +
          'name, intents (`{ intentId }`) by name, articles (`{ articleId }`) by title',
      ),
    ),
});
export const AuditPage = Page(AuditEntry);

export const listAudit = declareAdmin('GET', '/audit', 'list-audit', 'admin', {
  table: 'read',
  query: ListAuditQuery,
  response: AuditPage,
  status: 200,
  summary: 'Audit entries, newest first',
});

export const routes = [listAudit];
