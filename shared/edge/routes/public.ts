import * as z from 'zod/mini';
import { declarePublic } from '../route.ts';

export const openapi = declarePublic('GET', '/api/v1/openapi.json', 'openapi', {
  table: 'none',
  status: 200,
  response: z.record(z.string(), z.unknown()),
  summary: 'This OpenAPI 3.1 document',
});

export const routes = [openapi];
