import createClient from 'openapi-fetch';
import type { paths } from './schema';
import { toApiError } from './problem.ts';

// The admin API, typed from the project's OpenAPI document (schema.d.ts is generated from it).

export type Api = ReturnType<typeof createApi>;
export type Paths = paths;

/** The 200 (or 201, or 202) JSON body of an operation, e.g. `Ok<'/api/v1/admin/stats', 'get'>`. */
export type Ok<P extends keyof paths, M extends keyof paths[P]> =
  paths[P][M] extends { responses: infer R }
    ? R extends { 200: { content: { 'application/json': infer B } } } ? B
    : R extends { 201: { content: { 'application/json': infer B } } } ? B
    : R extends { 202: { content: { 'application/json': infer B } } } ? B : never
    : never;
/** The JSON request body of an operation. */
export type Body<P extends keyof paths, M extends keyof paths[P]> =
  paths[P][M] extends { requestBody?: { content: { 'application/json': infer B } } } ? B : never;
/** The query parameters of an operation. */
export type Query<P extends keyof paths, M extends keyof paths[P]> =
  paths[P][M] extends { parameters: { query?: infer Q } } ? NonNullable<Q> : never;

export interface ApiOptions { baseUrl: string; token: () => string | null }

export function createApi({ baseUrl, token }: ApiOptions) {
  const client = createClient<paths>({ baseUrl });
  client.use({
    onRequest({ request }) {
      const t = token();
      if (t) request.headers.set('authorization', `Bearer ${t}`);
      return request;
    },
  });
  return client;
}

/** The data of an openapi-fetch call, or its problem document thrown as an ApiError. */
export async function ok<T>(call: Promise<{ data?: T; error?: unknown; response: Response }>): Promise<T> {
  const { data, error, response } = await call;
  if (!response.ok) throw toApiError(response.status, error);
  return data as T;
}
