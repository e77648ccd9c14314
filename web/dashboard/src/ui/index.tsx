import { useEffect, useId, useRef, useState, type ReactNode } from 'react';
import * as Dialog from '@radix-ui/react-dialog';
import { ApiError, describeError, describePath, plainMessage } from '../api/problem.ts';

/** A screen: sets the document title and moves focus to its heading, so a route change is announced. */
export function Page({ title, actions, children }: { title: string; actions?: ReactNode; children: ReactNode }) {
  const h1 = useRef<HTMLHeadingElement>(null);
  useEffect(() => {
    document.title = `${title} · Support dashboard`;
    h1.current?.focus({ preventScroll: true });
  }, [title]);
  return (
    <>
      <div className="page-head">
        <h1 ref={h1} tabIndex={-1}>
          {title}
        </h1>
        {actions && <div className="page-actions">{actions}</div>}
      </div>
      {children}
    </>
  );
}

export function Loading({ label = 'Loading…' }: { label?: string }) {
  return (
    <p className="loading" role="status">
      <span className="spinner" aria-hidden="true" />
      {label}
    </p>
  );
}

/**
 * The request id of a failure on the service's side (5xx), ready to copy for support; nothing for
 * other errors, which say themselves what to change.
 */
export function RequestId({ error }: { error: unknown }) {
  const id = error instanceof ApiError && error.status >= 500 ? error.requestId : undefined;
  if (!id) return null;
  return (
    <p className="request-id small">
      <span>
        Request id: <code>{id}</code>
      </span>
      <CopyButton text={id} label="Copy the request id" />
    </p>
  );
}

export function ErrorState({ error, retry }: { error: unknown; retry?: () => void }) {
  return (
    <div className="error-state" role="alert">
      <p>{describeError(error)}</p>
      <RequestId error={error} />
      {retry && (
        <button type="button" onClick={retry}>
          Try again
        </button>
      )}
    </div>
  );
}

export function Empty({ children }: { children: ReactNode }) {
  return (
    <div className="empty">
      <p>{children}</p>
    </div>
  );
}

/**
 * A form-level error: the problem's message, or a summary of the field errors in words (each
 * named by its field's label; the ones with a field on screen are also shown beside it).
 */
export function FormError({ error, fields }: { error: unknown; fields?: FieldErrors }) {
  if (!error) return null;
  const list = fields
    ? fields.remaining()
    : error instanceof ApiError
      ? plainErrors(error.problem.errors ?? [], {})
      : [];
  if (fields && list.length === 0 && error instanceof ApiError && (error.problem.errors ?? []).length > 0) return null;
  if (list.length === 0)
    return (
      <div className="error" role="alert">
        <p>{describeError(error)}</p>
        <RequestId error={error} />
      </div>
    );
  return (
    <div className="error" role="alert">
      <p>Not saved: {list.length === 1 ? 'one value needs' : `${list.length} values need`} changing.</p>
      <ul>
        {list.map((f) => (
          <li key={f.path}>{f.text}</li>
        ))}
      </ul>
    </div>
  );
}

/** Field errors by path, in plain words (no pattern); for forms without useFieldErrors. */
export const fieldErrorsOf = (error: unknown): Record<string, string> =>
  error instanceof ApiError
    ? Object.fromEntries(Object.entries(error.fieldErrors()).map(([path, m]) => [path, plainMessage(m)]))
    : {};

interface PlainError {
  path: string;
  label: string;
  message: string;
  text: string;
}
const plainErrors = (errors: { path: string; message: string }[], labels: Record<string, string>): PlainError[] =>
  errors.map((e) => {
    const label = describePath(e.path, labels);
    const message = plainMessage(e.message);
    return { path: e.path, label, message, text: `${label} ${message}.` };
  });

export type FieldErrors = ReturnType<typeof useFieldErrors>;

/**
 * The field errors of a mutation's problem document, in plain words, each cleared as soon as its
 * field is edited (the service checks again on the next save). `labels`: the form's field labels
 * by path prefix, for the summary. `field(prefix)` gives a Field's `error` and `onEdit`: every
 * error under the prefix (`entities.0.name` under `entities`), an index said as "line n".
 */
export function useFieldErrors(error: unknown, labels: Record<string, string> = {}) {
  const [cleared, setCleared] = useState<{ of: unknown; prefixes: string[] }>({ of: null, prefixes: [] });
  const gone = cleared.of === error ? cleared.prefixes : [];
  const under = (prefix: string, path: string) => path === prefix || path.startsWith(`${prefix}.`);
  const all = error instanceof ApiError ? plainErrors(error.problem.errors ?? [], labels) : [];
  const live = all.filter((e) => !gone.some((p) => under(p, e.path)));
  const messagesUnder = (prefix: string) =>
    live
      .filter((e) => under(prefix, e.path))
      .map((e) => {
        const rest = e.path
          .slice(prefix.length + 1)
          .split('.')
          .find((s) => /^\d+$/.test(s));
        return rest === undefined || e.path === prefix ? e.message : `line ${Number(rest) + 1} ${e.message}`;
      });
  const message = (...prefixes: string[]) => {
    const m = prefixes.flatMap(messagesUnder);
    return m.length ? `${m.join('; ').replace(/^./, (c) => c.toUpperCase())}.` : undefined;
  };
  return {
    /** The message(s) under these paths, or undefined. */
    message,
    /** Props for a Field: its error, cleared when the field is edited. */
    field: (...prefixes: string[]) => ({
      error: message(...prefixes),
      onEdit: () => {
        if (message(...prefixes)) setCleared({ of: error, prefixes: [...gone, ...prefixes] });
      },
    }),
    /** Errors of fields not edited since. */
    remaining: () => live,
    /** Whether any error is under these paths (a FormError without them shows the rest). */
    has: (...prefixes: string[]) => live.some((e) => prefixes.some((p) => under(p, e.path))),
  };
}

interface FieldProps {
  label: string;
  error?: string | undefined;
  hint?: string;
  onEdit?: () => void;
  children: (props: { id: string; 'aria-describedby'?: string; 'aria-invalid'?: boolean }) => ReactNode;
}

/** A labelled control with its hint and its field error, wired with aria-describedby. */
export function Field({ label, error, hint, onEdit, children }: FieldProps) {
  const id = useId();
  const described = [hint ? `${id}-hint` : '', error ? `${id}-error` : ''].filter(Boolean).join(' ');
  return (
    <div className={`field${error ? ' has-error' : ''}`} onInput={onEdit} onChange={onEdit}>
      <label htmlFor={id}>{label}</label>
      {hint && (
        <p id={`${id}-hint`} className="hint">
          {hint}
        </p>
      )}
      {children({
        id,
        ...(described ? { 'aria-describedby': described } : {}),
        ...(error ? { 'aria-invalid': true } : {}),
      })}
      {error && (
        <p id={`${id}-error`} className="field-error">
          {error}
        </p>
      )}
    </div>
  );
}

export function CopyButton({ text, label = 'Copy' }: { text: string; label?: string }) {
  const [done, setDone] = useState(false);
  const copy = async () => {
    try {
      await navigator.clipboard.writeText(text);
      setDone(true);
      setTimeout(() => setDone(false), 2000);
    } catch {
      setDone(false);
    }
  };
  return (
    <button type="button" onClick={() => void copy()}>
      {done ? 'Copied' : label}
      <span className="visually-hidden" aria-live="polite">
        {done ? ' to the clipboard' : ''}
      </span>
    </button>
  );
}

/** Cursor paging: keeps the cursors of the pages before, so Back works without offsets. */
export function usePager(resetKey: string) {
  const [stack, setStack] = useState<(string | undefined)[]>([undefined]);
  const [key, setKey] = useState(resetKey);
  if (key !== resetKey) {
    setKey(resetKey);
    setStack([undefined]);
  }
  const cursor = stack[stack.length - 1];
  return {
    cursor,
    page: stack.length,
    next: (c: string) => setStack((s) => [...s, c]),
    back: () => setStack((s) => (s.length > 1 ? s.slice(0, -1) : s)),
  };
}

export function Pager({
  pager,
  nextCursor,
  label,
}: {
  pager: ReturnType<typeof usePager>;
  nextCursor: string | null | undefined;
  label: string;
}) {
  if (pager.page === 1 && !nextCursor) return null;
  return (
    <nav className="pager" aria-label={`${label} pages`}>
      <button type="button" onClick={pager.back} disabled={pager.page === 1}>
        Previous page
      </button>
      <span>Page {pager.page}</span>
      <button type="button" onClick={() => nextCursor && pager.next(nextCursor)} disabled={!nextCursor}>
        Next page
      </button>
    </nav>
  );
}

const LABELS: Record<string, string> = {
  in_progress: 'In progress',
  waiting_for_us: 'Waiting for us',
  waiting_for_customer: 'Waiting for the customer',
  done: 'Done',
};
export const label = (v: string) => LABELS[v] ?? v.charAt(0).toUpperCase() + v.slice(1).replace(/_/g, ' ');

export function Badge({ value, kind }: { value: string; kind?: string }) {
  return <span className={`badge badge-${kind ?? value}`}>{label(value)}</span>;
}

const dateTime = new Intl.DateTimeFormat(undefined, { dateStyle: 'medium', timeStyle: 'short' });
const dateTimeSeconds = new Intl.DateTimeFormat(undefined, { dateStyle: 'medium', timeStyle: 'medium' });
/** A date and time; `seconds` where seconds matter (a retry 5 s later). */
export function When({ iso, seconds }: { iso: string; seconds?: boolean }) {
  return <time dateTime={iso}>{(seconds ? dateTimeSeconds : dateTime).format(new Date(iso))}</time>;
}
/** "1 message", "3 messages": a count with its noun, singular for one. */
export const counted = (n: number, one: string, many = `${one}s`) => `${n} ${n === 1 ? one : many}`;
export const percent = (n: number | null | undefined) => (n == null ? '—' : `${Math.round(n * 1000) / 10} %`);

/** A confirmation in an accessible modal dialog (Radix: focus trap, Escape, labelled). */
export function Confirm({
  trigger,
  title,
  body,
  confirmLabel,
  onConfirm,
  danger,
}: {
  trigger: ReactNode;
  title: string;
  body: ReactNode;
  confirmLabel: string;
  onConfirm: () => unknown;
  danger?: boolean;
}) {
  const [open, setOpen] = useState(false);
  const [error, setError] = useState<unknown>(null);
  const [busy, setBusy] = useState(false);
  const run = async () => {
    setBusy(true);
    setError(null);
    try {
      await onConfirm();
      setOpen(false);
    } catch (e) {
      setError(e);
    } finally {
      setBusy(false);
    }
  };
  return (
    <Dialog.Root
      open={open}
      onOpenChange={(o) => {
        setOpen(o);
        setError(null);
      }}
    >
      <Dialog.Trigger asChild>{trigger}</Dialog.Trigger>
      <Dialog.Portal>
        <Dialog.Overlay className="dialog-overlay" />
        <Dialog.Content className="dialog">
          <Dialog.Title>{title}</Dialog.Title>
          <Dialog.Description asChild>
            <div>{body}</div>
          </Dialog.Description>
          <FormError error={error} />
          <div className="dialog-actions">
            <Dialog.Close asChild>
              <button type="button">Cancel</button>
            </Dialog.Close>
            <button type="button" className={danger ? 'danger' : 'primary'} onClick={() => void run()} disabled={busy}>
              {confirmLabel}
            </button>
          </div>
        </Dialog.Content>
      </Dialog.Portal>
    </Dialog.Root>
  );
}

export function EmbedSnippet({ widgetOrigin, widgetKey }: { widgetOrigin: string; widgetKey: string }) {
  const snippet = `<script src="${widgetOrigin}/widget.js" data-widget-key="${widgetKey}" async></script>`;
  return (
    <div className="snippet">
      <pre>
        <code>{snippet}</code>
      </pre>
      <CopyButton text={snippet} label="Copy the snippet" />
    </div>
  );
}
