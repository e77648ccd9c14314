import * as z from 'zod/mini';
import { ROLES } from '#shared/core/vocabulary.ts';
import { declareAdmin } from '../route.ts';
import { shownName } from '../schema.ts';
import { PlainTimestamp } from './common.ts';

// /auth: the caller and onboarding.
export const OnboardBody = z.strictObject({ tenantName: shownName(1, 100) });

export const TenantRef = z.object({ id: z.uuid(), name: z.string(), createdAt: PlainTimestamp });

export const MeResponse = z.object({
  user: z.object({ sub: z.string(), email: z.nullable(z.string()) }),
  tenant: z.nullable(TenantRef),
  role: z.nullable(z.enum(ROLES)),
  displayName: z
    .string()
    .check(
      z.describe(
        'the name on this user\'s messages; default a readable form of the email ("jane.doe@x.com" ' +
          'is "Jane Doe"), else `Support` (an address of a role, such as `owner@…`)',
      ),
    ),
  displayNameChosen: z
    .boolean()
    .check(
      z.describe('whether the user chose `displayName` (the dashboard asks before their first reply until they do)'),
    ),
});
export const PatchMeBody = z.strictObject({ displayName: shownName(1, 60) });

export const OnboardResponse = z.object({
  tenant: TenantRef,
  role: z.literal('owner'),
  widgetKey: z.string().check(z.regex(/^wk_/), z.describe('shown in full only here')),
});

export const getMe = declareAdmin('GET', '/auth/me', 'get-me', null, {
  table: 'write',
  response: MeResponse,
  status: 200,
  summary: 'The caller, their tenant and role',
  description:
    "`tenant` and `role` are null before onboarding. An invited user (by the token's `email`) joins their tenant on this call.",
});

export const onboard = declareAdmin('POST', '/auth/onboard', 'onboard', null, {
  table: 'write',
  body: OnboardBody,
  response: OnboardResponse,
  status: 201,
  idempotent: true,
  conflicts: ['ALREADY_ONBOARDED', 'IDEMPOTENCY_IN_PROGRESS'],
  summary: 'Create a tenant owned by the caller',
  description:
    'The new tenant gets a widget key (shown in full only in this response) and a starter set of intents. ' +
    'A user already in a tenant: 409 `ALREADY_ONBOARDED`; two concurrent calls make one tenant.',
});

export const patchMe = declareAdmin('PATCH', '/auth/me', 'patch-me', 'viewer', {
  table: 'write',
  body: PatchMeBody,
  response: MeResponse,
  status: 200,
  summary: "Change the caller's display name",
  description: "The name the caller's agent messages carry from now on. Any member may change their own.",
});

export const routes = [getMe, onboard, patchMe];
