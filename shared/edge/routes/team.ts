import * as z from 'zod/mini';
import { REPLY_PLACEHOLDERS } from '#shared/core/vocabulary.ts';
import { declareAdmin } from '../route.ts';
import { EmptyQuery, IdParams, shownName, text } from '../schema.ts';
import { Timestamp } from './common.ts';

// The team's daily tools: saved replies (what `/` in the reply box offers) and the tenant's labels.
// Labels are set on a conversation with PATCH /conversations/{id} (conversations.ts).

const PLACEHOLDER = /\{\{\s*([^{}]*?)\s*\}\}/g;
const known = REPLY_PLACEHOLDERS.map((p) => `{{${p}}}`).join(', ');

export const Shortcut = z
  .string()
  .check(
    z.regex(/^[a-z0-9-]{1,32}$/, 'must be 1 to 32 lowercase letters, digits or hyphens'),
    z.describe('what the agent types after `/` to find the reply'),
  );

export const SavedReplyBody = z.strictObject({
  shortcut: Shortcut,
  title: shownName(1, 100),
  body: text(1, 5000).check(
    z.superRefine((s, ctx) => {
      for (const m of s.matchAll(PLACEHOLDER)) {
        if (!(REPLY_PLACEHOLDERS as readonly string[]).includes(m[1]!) || m[0] !== `{{${m[1]}}}`) {
          ctx.addIssue({
            code: 'custom',
            message: `has the unknown placeholder ${m[0]}; the placeholders are ${known}`,
          });
          return;
        }
      }
    }),
    z.describe(`Markdown-free text; the placeholders ${known} are filled in by the dashboard before sending`),
  ),
});

export const SavedReply = z.object({
  id: z.uuid(),
  shortcut: z.string(),
  title: z.string(),
  body: z.string(),
  createdAt: Timestamp,
  updatedAt: Timestamp,
});
export const SavedReplyList = z.object({ items: z.array(SavedReply) });

export const listSavedReplies = declareAdmin('GET', '/saved-replies', 'list-saved-replies', 'agent', {
  table: 'read',
  query: EmptyQuery,
  response: SavedReplyList,
  status: 200,
  summary: 'Every saved reply of the tenant, by shortcut',
  description: 'At most 500, all in one response (the reply box filters them as the agent types).',
});

export const createSavedReply = declareAdmin('POST', '/saved-replies', 'create-saved-reply', 'admin', {
  table: 'write',
  body: SavedReplyBody,
  response: SavedReply,
  status: 201,
  idempotent: true,
  conflicts: ['CONFLICT', 'IDEMPOTENCY_IN_PROGRESS'],
  summary: 'Save a reply',
  description:
    'A shortcut already used in the tenant, or a 501st reply: 409 `CONFLICT`. Audited (category `settings`).',
});

export const updateSavedReply = declareAdmin('PUT', '/saved-replies/{id}', 'update-saved-reply', 'admin', {
  table: 'write',
  params: IdParams,
  body: SavedReplyBody,
  response: SavedReply,
  status: 200,
  conflicts: ['CONFLICT'],
  summary: 'Replace a saved reply',
  description: 'A full replacement; a shortcut used by another reply is 409 `CONFLICT`. Audited.',
});

export const deleteSavedReply = declareAdmin('DELETE', '/saved-replies/{id}', 'delete-saved-reply', 'admin', {
  table: 'write',
  params: IdParams,
  status: 204,
  summary: 'Delete a saved reply',
  description: 'Audited.',
});

export const LabelName = shownName(1, 32);
export const LabelList = z.object({
  items: z.array(
    z.object({ name: z.string(), count: z.number().check(z.int(), z.describe('conversations carrying it now')) }),
  ),
});

export const listLabels = declareAdmin('GET', '/labels', 'list-labels', 'viewer', {
  table: 'read',
  query: EmptyQuery,
  response: LabelList,
  status: 200,
  summary: 'The labels in use, with their counts',
  description:
    'Every label on at least one conversation, most used first, all in one response. Labels compare with case, width and ' +
    'spacing folded ("VIP" and "vip" are one label) and keep the spelling they were first given.',
});

export const routes = [listSavedReplies, createSavedReply, updateSavedReply, deleteSavedReply, listLabels];
