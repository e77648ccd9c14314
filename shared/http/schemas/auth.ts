import * as z from 'zod/mini';
import { text } from '../schema.ts';

export const OnboardBody = z.strictObject({ tenantName: text(1, 100) });
