import type { components } from './schema';

// RFC 9457 problem documents from the API, as errors the screens can show. Partial: the gateway's
// own 401 body and a body that is not JSON become problems with a title only.
export type Problem = Partial<components['schemas']['Problem']>;
export type FieldError = NonNullable<Problem['errors']>[number];

export class ApiError extends Error {
  constructor(readonly status: number, readonly problem: Problem) {
    super(problem.detail ?? problem.title ?? `The server answered ${status}`);
    this.name = 'ApiError';
  }
  get code() { return this.problem.code; }
  /** Field errors by path (`config.nlu.confidenceThreshold`, `trainingPhrases.0`). */
  fieldErrors(): Record<string, string> {
    return Object.fromEntries((this.problem.errors ?? []).map((e) => [e.path, e.message]));
  }
}

const FRIENDLY: Record<string, string> = {
  FORBIDDEN: 'Your role does not allow this. Ask an owner of your team.',
  NOT_FOUND: 'This item does not exist, or it was removed.',
  RATE_LIMITED: 'Too many requests; wait a moment and try again.',
  UNAVAILABLE: 'The service is briefly unavailable; try again in a moment.',
  INTERNAL: 'Something went wrong on our side. If it keeps happening, give support the request id.',
};

/** A sentence for people: the problem's own detail where it says something useful. */
export function describeError(err: unknown): string {
  if (err instanceof ApiError) {
    const friendly = err.code ? FRIENDLY[err.code] : undefined;
    if (err.status === 401) return 'Your session has ended. Sign in again.';
    if (friendly && (err.code !== 'FORBIDDEN' || !err.problem.detail)) return friendly;
    return err.problem.detail ?? err.problem.title ?? `The server answered ${err.status}.`;
  }
  if (err instanceof TypeError) return 'The service cannot be reached. Check your connection and try again.';
  return err instanceof Error ? err.message : String(err);
}

/** Turns a failed response body into an ApiError (the gateway's own 401/404 bodies included). */
export function toApiError(status: number, body: unknown): ApiError {
  if (body && typeof body === 'object') {
    const b = body as Problem & { message?: string };
    return new ApiError(status, b.detail || b.code ? b : { status, title: b.message ?? `Error ${status}` });
  }
  return new ApiError(status, { status, title: typeof body === 'string' && body ? body : `Error ${status}` });
}
