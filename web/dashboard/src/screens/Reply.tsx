import { useId, useMemo, useRef, useState, type KeyboardEvent, type TextareaHTMLAttributes } from 'react';
import { useQuery } from '@tanstack/react-query';
import type { ReplyPlaceholder } from '#vocabulary';
import { fillReply, namesAgent, slashToken } from './reply-text.ts';
import { ok } from '../api/client.ts';
import { useApp } from '../context.tsx';

// The reply box's saved-reply picker: `/` at the start of a word opens a listbox of the team's
// saved replies, filtered by shortcut or title as the agent types; Arrow keys move, Enter or Tab
// insert the reply with its placeholders filled in, Escape closes. The text area is the combobox
// (aria-expanded, aria-controls, aria-activedescendant), so focus never leaves what the agent writes.

const MAX_SHOWN = 8;

interface Props extends Omit<TextareaHTMLAttributes<HTMLTextAreaElement>, 'value' | 'onChange'> {
  value: string;
  onChange: (value: string) => void;
  values: Partial<Record<ReplyPlaceholder, string>>;
  /** Only agents read saved replies; for others `/` is a slash. */
  enabled: boolean;
  /**
   * Given while the member has not chosen the name customers see: a reply that names the agent asks
   * for it first, and is filled in (`resume`) with the name chosen, never the default.
   */
  askName?: ((resume: (name: string) => void) => void) | undefined;
}

export function ReplyTextarea({ value, onChange, values, enabled, askName, ...rest }: Props) {
  const { api } = useApp();
  const listId = useId();
  const ref = useRef<HTMLTextAreaElement>(null);
  const [caret, setCaret] = useState(0);
  const [active, setActive] = useState(0);
  const [dismissedAt, setDismissedAt] = useState<number | null>(null);
  const replies = useQuery({
    queryKey: ['saved-replies'],
    enabled,
    staleTime: 60_000,
    queryFn: () => ok(api.GET('/api/v1/admin/saved-replies')),
  });
  const token = enabled ? slashToken(value, caret) : null;
  const query = token?.query ?? null;
  const matches = useMemo(() => {
    if (query === null) return [];
    const q = query.toLowerCase();
    const all = replies.data?.items ?? [];
    const starts = all.filter((r) => r.shortcut.startsWith(q));
    const rest = all.filter(
      (r) => !r.shortcut.startsWith(q) && (r.shortcut.includes(q) || r.title.toLowerCase().includes(q)),
    );
    return [...starts, ...rest].slice(0, MAX_SHOWN);
  }, [query, replies.data]);
  const open = token !== null && dismissedAt !== token.start && (matches.length > 0 || !token.query.includes(' '));
  const current = Math.min(active, Math.max(0, matches.length - 1));

  const choose = (i: number) => {
    const r = matches[i];
    if (!token || !r) return;
    const insert = (filled: typeof values) => {
      const text = fillReply(r.body, filled);
      const next = value.slice(0, token.start) + text + value.slice(caret);
      const at = token.start + text.length;
      onChange(next);
      setCaret(at);
      setActive(0);
      requestAnimationFrame(() => {
        ref.current?.focus();
        ref.current?.setSelectionRange(at, at);
      });
    };
    if (askName && namesAgent(r.body)) {
      setDismissedAt(token.start);
      askName((name) => insert({ ...values, 'agent.name': name }));
    } else insert(values);
  };

  const onKeyDown = (e: KeyboardEvent<HTMLTextAreaElement>) => {
    if (!open) return;
    if (e.key === 'Escape') {
      e.preventDefault();
      setDismissedAt(token!.start);
      return;
    }
    if (matches.length === 0) return;
    if (e.key === 'ArrowDown') {
      e.preventDefault();
      setActive((current + 1) % matches.length);
    } else if (e.key === 'ArrowUp') {
      e.preventDefault();
      setActive((current - 1 + matches.length) % matches.length);
    } else if ((e.key === 'Enter' && !e.shiftKey) || e.key === 'Tab') {
      e.preventDefault();
      choose(current);
    }
  };
  const optionId = (i: number) => `${listId}-opt-${i}`;

  return (
    <div className="reply-picker">
      <textarea
        {...rest}
        ref={ref}
        value={value}
        role="combobox"
        aria-autocomplete="list"
        aria-expanded={open}
        aria-controls={listId}
        aria-activedescendant={open && matches.length > 0 ? optionId(current) : undefined}
        onChange={(e) => {
          onChange(e.target.value);
          setCaret(e.target.selectionStart);
          setActive(0);
          setDismissedAt(null);
        }}
        onSelect={(e) => setCaret(e.currentTarget.selectionStart)}
        onKeyDown={onKeyDown}
        onBlur={() => setDismissedAt(token?.start ?? null)}
      />
      <div id={listId} role="listbox" aria-label="Saved replies" className="picker" hidden={!open}>
        {open &&
          matches.map((r, i) => (
            <div
              key={r.id}
              id={optionId(i)}
              role="option"
              tabIndex={-1}
              aria-selected={i === current}
              className={`picker-option${i === current ? ' active' : ''}`}
              onMouseDown={(e) => {
                e.preventDefault();
                choose(i);
              }}
              onMouseMove={() => setActive(i)}
            >
              <span className="picker-shortcut">/{r.shortcut}</span> <span className="picker-title">{r.title}</span>
              <span className="picker-body">{fillReply(r.body, values)}</span>
            </div>
          ))}
        {open && matches.length === 0 && (
          <div
            role="option"
            tabIndex={-1}
            aria-selected={false}
            aria-disabled="true"
            className="picker-option picker-empty"
          >
            {replies.isPending
              ? 'Loading saved replies…'
              : replies.isError
                ? 'Saved replies could not be read.'
                : query
                  ? `No saved reply matches “${query}”.`
                  : 'No saved reply yet.'}
          </div>
        )}
      </div>
    </div>
  );
}
