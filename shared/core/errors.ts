// Typed errors that domain and data code throw; the error middleware turns each into an RFC 9457
// problem document. Anything else is a bug and becomes a logged 500 INTERNAL.

export interface FieldError {
  path: string;
  message: string;
}

export class AppError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly extra: { errors?: FieldError[]; retryAfter?: number } = {},
  ) {
    super(message);
    this.name = new.target.name;
  }
}

export class ValidationError extends AppError {
  constructor(detail: string, errors: FieldError[]) {
    super(400, 'VALIDATION_ERROR', detail, { errors });
  }
}
/** A single-field validation failure raised by domain rules that a schema cannot express. */
export const fieldError = (path: string, message: string) =>
  new ValidationError(`${path} ${message}`, [{ path, message }]);
export class InvalidJson extends AppError {
  constructor(detail: string) {
    super(400, 'INVALID_JSON', detail);
  }
}
export class InvalidCursor extends AppError {
  constructor() {
    super(400, 'INVALID_CURSOR', 'cursor is not valid for this list');
  }
}
export class Unauthorized extends AppError {
  constructor(detail = 'missing or invalid widget key') {
    super(401, 'UNAUTHORIZED', detail);
  }
}
export class NotOnboarded extends AppError {
  constructor() {
    super(403, 'NOT_ONBOARDED', 'the user belongs to no tenant; call POST /auth/onboard first');
  }
}
export class Forbidden extends AppError {
  constructor(detail = 'your role may not do this') {
    super(403, 'FORBIDDEN', detail);
  }
}
export class OriginNotAllowed extends AppError {
  constructor() {
    super(403, 'ORIGIN_NOT_ALLOWED', 'this origin may not use the widget');
  }
}
export class NotFound extends AppError {
  constructor(what = 'resource') {
    super(404, 'NOT_FOUND', `${what} not found`);
  }
}
export class Conflict extends AppError {
  constructor(
    detail: string,
    code:
      | 'CONFLICT'
      | 'ALREADY_ONBOARDED'
      | 'CONVERSATION_CLOSED'
      | 'IDEMPOTENCY_IN_PROGRESS'
      | 'EMAIL_SUPPRESSED' = 'CONFLICT',
  ) {
    super(409, code, detail);
  }
}
export class InvalidTransition extends AppError {
  constructor(detail: string) {
    super(409, 'INVALID_TRANSITION', detail);
  }
}
export class PayloadTooLarge extends AppError {
  constructor(limit: number) {
    super(413, 'PAYLOAD_TOO_LARGE', `request body is over ${limit} bytes`);
  }
}
export class UnsupportedMediaType extends AppError {
  constructor() {
    super(415, 'UNSUPPORTED_MEDIA_TYPE', 'send the body as application/json');
  }
}
/** The first request with this Idempotency-Key still owns it; `retryAfter`: seconds until its lock ends. */
export class IdempotencyInProgress extends AppError {
  constructor(retryAfter: number) {
    super(409, 'IDEMPOTENCY_IN_PROGRESS', 'a request with this Idempotency-Key is still in progress', { retryAfter });
  }
}
export class IdempotencyKeyReused extends AppError {
  constructor() {
    super(422, 'IDEMPOTENCY_KEY_REUSED', 'this Idempotency-Key was used with a different request body');
  }
}
export class RateLimited extends AppError {
  constructor(detail: string, retryAfter: number) {
    super(429, 'RATE_LIMITED', detail, { retryAfter });
  }
}
export class Unavailable extends AppError {
  constructor(retryAfter = 2) {
    super(503, 'UNAVAILABLE', 'the database cannot be reached; try again shortly', { retryAfter });
  }
}
