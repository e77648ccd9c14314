import { useId, useState, type FormEvent } from 'react';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { ok } from '../api/client.ts';
import { useApp } from '../context.tsx';
import { FormError, useFieldErrors } from '../ui/index.tsx';

// Labels on conversations: the chips of one conversation (agents add and remove them), and the
// inbox's filter by label with the count of each.

const MAX_LABELS = 10;
const fold = (s: string) => s.normalize('NFKC').toLowerCase().replace(/\s+/g, ' ').trim();

export const useLabels = () => {
  const { api } = useApp();
  return useQuery({ queryKey: ['labels'], queryFn: () => ok(api.GET('/api/v1/admin/labels')) });
};

export function LabelChips({ labels }: { labels: string[] }) {
  if (labels.length === 0) return null;
  return (
    <span className="chips">
      {labels.map((l) => (
        <span key={l} className="chip">
          {l}
        </span>
      ))}
    </span>
  );
}

/** The inbox's filter: every label in use, with how many conversations carry it. */
export function LabelFilter({ value, onChange }: { value: string; onChange: (label: string) => void }) {
  const labels = useLabels();
  const id = useId();
  const items = labels.data?.items ?? [];
  const known = !value || items.some((l) => fold(l.name) === fold(value));
  return (
    <div className="field">
      <label htmlFor={id}>Label</label>
      <select id={id} value={value} onChange={(e) => onChange(e.target.value)}>
        <option value="">Any label</option>
        {!known && <option value={value}>{value} (0)</option>}
        {items.map((l) => (
          <option key={l.name} value={l.name}>
            {l.name} ({l.count})
          </option>
        ))}
      </select>
    </div>
  );
}

/** One conversation's labels: chips with a remove button each, and a field to add one (known labels suggested). */
export function LabelEditor({
  conversationId,
  labels,
  canEdit,
}: {
  conversationId: string;
  labels: string[];
  canEdit: boolean;
}) {
  const { api } = useApp();
  const qc = useQueryClient();
  const known = useLabels();
  const inputId = useId();
  const [text, setText] = useState('');
  const save = useMutation({
    mutationFn: (next: string[]) =>
      ok(
        api.PATCH('/api/v1/admin/conversations/{id}', {
          params: { path: { id: conversationId } },
          body: { labels: next },
        }),
      ),
    onSuccess: () => {
      setText('');
      void qc.invalidateQueries({ queryKey: ['conversation', conversationId] });
      void qc.invalidateQueries({ queryKey: ['conversations'] });
      void qc.invalidateQueries({ queryKey: ['labels'] });
    },
  });
  const errors = useFieldErrors(save.error, { labels: 'Label' });
  const add = (e: FormEvent) => {
    e.preventDefault();
    const l = text.trim();
    if (!l || save.isPending) return;
    if (labels.some((x) => fold(x) === fold(l))) {
      setText('');
      return;
    }
    save.mutate([...labels, l]);
  };
  const full = labels.length >= MAX_LABELS;
  const fieldError = errors.message('labels');
  return (
    <section className="labels" aria-labelledby={`${inputId}-h`}>
      <h3 id={`${inputId}-h`}>Labels</h3>
      {labels.length === 0 ? (
        <p className="muted small">No label yet.</p>
      ) : (
        <ul className="chips">
          {labels.map((l) => (
            <li key={l} className="chip">
              {l}
              {canEdit && (
                <button
                  type="button"
                  className="chip-remove"
                  aria-label={`Remove label ${l}`}
                  disabled={save.isPending}
                  onClick={() => save.mutate(labels.filter((x) => x !== l))}
                >
                  ×
                </button>
              )}
            </li>
          ))}
        </ul>
      )}
      {canEdit && (
        <form className="label-add" onSubmit={add} noValidate>
          <label htmlFor={inputId} className="visually-hidden">
            Add a label
          </label>
          <input
            id={inputId}
            className="label-input"
            value={text}
            maxLength={32}
            list={`${inputId}-known`}
            placeholder={full ? 'At most 10 labels' : 'Add a label'}
            disabled={full}
            aria-invalid={fieldError ? true : undefined}
            aria-describedby={fieldError ? `${inputId}-error` : undefined}
            onChange={(e) => {
              setText(e.target.value);
              if (save.error) save.reset();
            }}
          />
          <datalist id={`${inputId}-known`}>
            {(known.data?.items ?? [])
              .filter((k) => !labels.some((x) => fold(x) === fold(k.name)))
              .map((k) => (
                <option key={k.name} value={k.name} />
              ))}
          </datalist>
          <button type="submit" disabled={full || save.isPending || !text.trim()}>
            Add label
          </button>
          {fieldError && (
            <p id={`${inputId}-error`} className="field-error label-error">
              {fieldError}
            </p>
          )}
          <div className="label-error">
            <FormError error={save.error && !fieldError ? save.error : null} fields={errors} />
          </div>
        </form>
      )}
    </section>
  );
}
