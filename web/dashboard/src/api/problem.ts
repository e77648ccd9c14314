import type { components } from './schema';

// RFC 9457 problem documents from the API, as errors the screens can show. Partial: the gateway's
// own 401 body and a body that is not JSON become problems with a title only.
export type Problem = Partial<components['schemas']['Problem']>;
export type FieldError = NonNullable<Problem['errors']>[number];

export class ApiError extends Error {
  /** `headerId`: the response's `x-request-id`, for a body that does not carry its `requestId`. */
  constructor(
    readonly status: number,
    readonly problem: Problem,
    private readonly headerId?: string | null,
  ) {
    super(problem.detail ?? problem.title ?? `The server answered ${status}`);
    this.name = 'ApiError';
  }
  get code() {
    return this.problem.code;
  }
  /** What support needs to find the request in the logs. */
  get requestId(): string | undefined {
    return this.problem.requestId || this.headerId || undefined;
  }
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
    // A failure on our side without a code of ours (a proxy's page, a gateway's 502): its body means nothing to people.
    if (err.status >= 500 && !err.code) return FRIENDLY.INTERNAL!;
    return err.problem.detail ?? err.problem.title ?? `The server answered ${err.status}.`;
  }
  if (err instanceof TypeError) return 'The service cannot be reached. Check your connection and try again.';
  return err instanceof Error ? err.message : String(err);
}

/** Turns a failed response into an ApiError (the gateway's own 401/404 bodies included). */
export function toApiError(response: Response, body: unknown): ApiError {
  const { status } = response;
  const headerId = response.headers.get('x-request-id');
  if (body && typeof body === 'object') {
    const b = body as Problem & { message?: string };
    return new ApiError(status, b.detail || b.code ? b : { status, title: b.message ?? `Error ${status}` }, headerId);
  }
  return new ApiError(status, { status, title: typeof body === 'string' && body ? body : `Error ${status}` }, headerId);
}

// Field errors in plain words. The service's own messages are sentences ("must not be empty");
// the schema library's defaults and anything that reads like a pattern are put in words here, so
// no regular expression nor internal path ever reaches the screen.
const KINDS: Record<string, string> = {
  string: 'text',
  number: 'a number',
  int: 'a whole number',
  boolean: 'yes or no',
  array: 'a list',
  object: 'a group of values',
  nonoptional: 'filled in',
  undefined: 'left out',
  null: 'empty',
};
const PLAIN: [RegExp, (m: RegExpExecArray) => string][] = [
  [
    /^Invalid input: expected (\w+), received (\w+)/,
    (m) => (m[2] === 'undefined' ? 'is required' : `must be ${KINDS[m[1]!] ?? m[1]}`),
  ],
  [/^Invalid option: expected one of (.*)$/, (m) => `must be one of: ${m[1]!.replace(/"/g, '').split('|').join(', ')}`],
  [
    /^Too (big|small): expected (?:string|array) to have ([<>]=?)(\d+) (\w+)/,
    (m) => `must have at ${m[2]!.startsWith('<') ? 'most' : 'least'} ${m[3]} ${m[4]}`,
  ],
  [/^Too big: expected number to be <=?([\d.]+)/, (m) => `must be at most ${m[1]}`],
  [/^Too small: expected number to be >=?([\d.]+)/, (m) => `must be at least ${m[1]}`],
  [/^Invalid (?:email|email address)/i, () => 'must be an email address'],
  [/^Invalid (?:URL|url)/, () => 'must be a web address starting with https://'],
  [/^Unrecognized key|^unknown field/, () => 'is not a setting this form knows'],
];

/** A field error's message as a person reads it. */
export function plainMessage(message: string): string {
  for (const [re, say] of PLAIN) {
    const m = re.exec(message);
    if (m) return say(m);
  }
  // Still a pattern or a type name: say what to do instead of how the check is written.
  if (/[\^$\\]|\{\d|\[[a-z0-9]-|\/.+\/[gimsuy]*$/i.test(message)) return 'is not in the expected format';
  return message;
}

const words = (segment: string) =>
  segment
    .replace(/([a-z])([A-Z])/g, '$1 $2')
    .replace(/[_-]+/g, ' ')
    .toLowerCase();

/**
 * A field's path (`config.widget.allowedOrigins.0`) as words: its label where the form knows it
 * (`labels` by path prefix), else the last named part; an index becomes "line n".
 */
export function describePath(path: string, labels: Record<string, string> = {}): string {
  const prefix = Object.keys(labels)
    .filter((p) => path === p || path.startsWith(`${p}.`))
    .sort((a, b) => b.length - a.length)[0];
  const rest = (prefix === undefined ? path : path.slice(prefix.length + 1)).split('.').filter(Boolean);
  const named =
    prefix !== undefined
      ? labels[prefix]!
      : (() => {
          const last = [...rest].reverse().find((s) => !/^\d+$/.test(s) && s !== 'config' && s !== 'body');
          const name = last ? words(last) : 'a value';
          return name.charAt(0).toUpperCase() + name.slice(1);
        })();
  const index = rest.find((s) => /^\d+$/.test(s));
  return index === undefined ? named : `${named}, line ${Number(index) + 1}`;
}
