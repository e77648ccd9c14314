import { useState } from 'react';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { Link } from 'react-router';
import { ok, type Body, type Ok } from '../api/client.ts';
import { useApp } from '../context.tsx';
import { Badge, CopyButton, Field, FormError, useFieldErrors } from '../ui/index.tsx';

// "Look it up": an intent whose action is `call` asks the team's endpoint (an action integration)
// before it answers. Here the team picks one or adds one (its signing secret shown once), writes
// what the customer reads when the lookup fails, and tries it as a customer would see it.

/** The route answers an action's try (200) or a webhook's queued ping (202): here always the first. */
type Tried = Extract<Ok<'/api/v1/admin/integrations/{id}/test', 'post'>, { reply: string }>;
type NewAction = Body<'/api/v1/admin/integrations', 'post'>;
const NEW = 'new';

export interface LookUpValue {
  integrationId: string;
  failureResponse: string;
}

export function LookItUp({
  value,
  onChange,
  intentName,
  response,
  entityNames,
  errors,
}: {
  value: LookUpValue;
  onChange: (v: LookUpValue) => void;
  intentName: string;
  response: string;
  entityNames: string[];
  errors: ReturnType<typeof useFieldErrors>;
}) {
  const { api } = useApp();
  const qc = useQueryClient();
  const list = useQuery({ queryKey: ['integrations'], queryFn: () => ok(api.GET('/api/v1/admin/integrations')) });
  const actions = (list.data?.items ?? []).filter((i) => i.type === 'action');
  const [adding, setAdding] = useState(false);
  const [draft, setDraft] = useState({ name: '', url: '', timeoutMs: '3000' });
  const [secret, setSecret] = useState<{ name: string; secret: string } | null>(null);
  const add = useMutation({
    mutationFn: () => {
      const body: NewAction = {
        type: 'action',
        name: draft.name.trim(),
        config: { url: draft.url.trim(), timeoutMs: Number(draft.timeoutMs) },
        credentials: {},
      };
      return ok(api.POST('/api/v1/admin/integrations', { body }));
    },
    onSuccess: (made) => {
      void qc.invalidateQueries({ queryKey: ['integrations'] });
      setAdding(false);
      setDraft({ name: '', url: '', timeoutMs: '3000' });
      if (made.credentials.secret && !made.credentials.secret.startsWith('****'))
        setSecret({ name: made.name, secret: made.credentials.secret });
      onChange({ ...value, integrationId: made.id });
    },
  });
  const addErrors = useFieldErrors(add.error, {
    name: 'Name',
    'config.url': 'Endpoint URL',
    'config.timeoutMs': 'Timeout',
  });

  const [sample, setSample] = useState<Record<string, string>>({});
  const tryIt = useMutation({
    mutationFn: async (): Promise<Tried> =>
      (await ok(
        api.POST('/api/v1/admin/integrations/{id}/test', {
          params: { path: { id: value.integrationId } },
          body: {
            intent: intentName || 'unnamed',
            response: response || 'Done.',
            entities: Object.fromEntries(
              Object.entries(sample)
                .filter(([k, v]) => entityNames.includes(k) && v.trim())
                .map(([k, v]) => [k, v.trim()]),
            ),
            ...(value.failureResponse.trim() ? { failureResponse: value.failureResponse.trim() } : {}),
          },
        }),
      )) as Tried,
  });

  return (
    <fieldset className="look-it-up">
      <legend>Look it up</legend>
      <p className="muted small">
        Before answering, the assistant asks your system (an action: your HTTPS endpoint, signed like a webhook) once
        the customer has given the entities above. Use <code>{'{{data.path}}'}</code> in the response for what it
        answers, e.g. <code>{'{{data.order.status}}'}</code>.
      </p>
      <Field label="Action to call" {...errors.field('integrationId')}>
        {(p) => (
          <select
            {...p}
            value={adding ? NEW : value.integrationId}
            onChange={(e) => {
              if (e.target.value === NEW) {
                setAdding(true);
                return;
              }
              setAdding(false);
              onChange({ ...value, integrationId: e.target.value });
            }}
          >
            <option value="">Choose an action…</option>
            {actions.map((a) => (
              <option key={a.id} value={a.id}>
                {a.name}
              </option>
            ))}
            <option value={NEW}>Add a new action…</option>
          </select>
        )}
      </Field>
      {secret && (
        <section className="secret-once" aria-labelledby="action-secret-h">
          <h3 id="action-secret-h">Signing secret of {secret.name}</h3>
          <p>
            Shown <strong>only now</strong>: your endpoint checks each request's signature with it (Standard Webhooks).
          </p>
          <p>
            <code className="key">{secret.secret}</code>
          </p>
          <div className="row">
            <CopyButton text={secret.secret} label="Copy the secret" />
            <button type="button" onClick={() => setSecret(null)}>
              I have stored it
            </button>
          </div>
        </section>
      )}
      {adding && (
        <fieldset className="subform">
          <legend>New action</legend>
          <Field label="Action name" {...addErrors.field('name')}>
            {(p) => (
              <input
                {...p}
                value={draft.name}
                onChange={(e) => setDraft({ ...draft, name: e.target.value })}
                maxLength={100}
                placeholder="Orders"
              />
            )}
          </Field>
          <Field
            label="Endpoint URL"
            {...addErrors.field('config.url')}
            hint="An https URL of your system; it receives a signed POST."
          >
            {(p) => (
              <input
                {...p}
                type="url"
                value={draft.url}
                onChange={(e) => setDraft({ ...draft, url: e.target.value })}
                autoComplete="off"
                placeholder="https://shop.example.com/support/order-status"
              />
            )}
          </Field>
          <Field
            label="Timeout (ms)"
            {...addErrors.field('config.timeoutMs')}
            hint="500 to 10,000. Past it the customer gets the failure response."
          >
            {(p) => (
              <input
                {...p}
                type="number"
                min={500}
                max={10000}
                step={100}
                value={draft.timeoutMs}
                onChange={(e) => setDraft({ ...draft, timeoutMs: e.target.value })}
              />
            )}
          </Field>
          <FormError error={add.error} fields={addErrors} />
          <div className="row">
            <button type="button" className="primary" disabled={add.isPending} onClick={() => add.mutate()}>
              Add the action
            </button>
            <button type="button" onClick={() => setAdding(false)}>
              Cancel
            </button>
          </div>
        </fieldset>
      )}
      <Field
        label="When the lookup fails"
        {...errors.field('failureResponse')}
        hint="What the customer reads when your system does not answer in time or answers something unusable. Empty: a sentence that it cannot be looked up now, offering a person."
      >
        {(p) => (
          <textarea
            {...p}
            rows={2}
            value={value.failureResponse}
            maxLength={2000}
            onChange={(e) => onChange({ ...value, failureResponse: e.target.value })}
          />
        )}
      </Field>
      {value.integrationId && !adding && (
        <fieldset className="try-it">
          <legend>Try it</legend>
          <p className="muted small">
            Calls the action once with these values, as the assistant would, and shows the customer's reply. Nothing is
            stored.
          </p>
          {entityNames.map((n) => (
            <Field key={n} label={`Example ${n}`}>
              {(p) => (
                <input {...p} value={sample[n] ?? ''} onChange={(e) => setSample({ ...sample, [n]: e.target.value })} />
              )}
            </Field>
          ))}
          <div className="row">
            <button type="button" disabled={tryIt.isPending} onClick={() => tryIt.mutate()}>
              Try it
            </button>
            <Link to={`/integrations/${encodeURIComponent(value.integrationId)}`}>Recent calls</Link>
          </div>
          <FormError error={tryIt.error} />
          {tryIt.data && (
            <div className="tried" role="status">
              <p className="row">
                <Badge
                  value={tryIt.data.action.status}
                  kind={tryIt.data.action.status === 'ok' ? 'succeeded' : 'failed'}
                />{' '}
                <span className="muted small">{tryIt.data.action.latencyMs} ms</span>
              </p>
              <p className="small muted">The customer reads:</p>
              <p className="bubble">{tryIt.data.reply}</p>
            </div>
          )}
        </fieldset>
      )}
    </fieldset>
  );
}
