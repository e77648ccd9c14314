import { useState, type FormEvent } from 'react';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { Link, useLocation, useNavigate, useParams, useSearchParams } from 'react-router';
import { ok, type Body, type Ok } from '../api/client.ts';
import { useApp, useMember } from '../context.tsx';
import { atLeast } from '../roles.ts';
import {
  Badge,
  Confirm,
  Empty,
  ErrorState,
  Field,
  FormError,
  Loading,
  Page,
  useFieldErrors,
  type FieldErrors,
} from '../ui/index.tsx';
import { TryMessage } from './TryMessage.tsx';
import { LookItUp } from './LookItUp.tsx';

type Intent = Ok<'/api/v1/admin/intents/{id}', 'get'>;
type Template = Ok<'/api/v1/admin/intent-templates', 'get'>['items'][number];
/** A template's blank, `[what goes here]`: the team writes its own fact there. */
const BLANK = /\[[^[\]\n]{1,80}\]/;
type IntentInput = Body<'/api/v1/admin/intents', 'post'>;
type Entity = NonNullable<IntentInput['entities']>[number];
const ENTITY_TYPES: Entity['type'][] = ['email', 'phone', 'number', 'date', 'order_id', 'url', 'regex'];
/** An entity row of the form, with a key of its own so that removing a row keeps the others' inputs. */
type Row = Entity & { key: string };

export default function Intents() {
  const { id } = useParams();
  if (id) return <IntentEditor key={id} id={id === 'new' ? null : id} />;
  return <IntentList />;
}

function IntentList() {
  const { api } = useApp();
  const member = useMember();
  const list = useQuery({ queryKey: ['intents'], queryFn: () => ok(api.GET('/api/v1/admin/intents')) });
  return (
    <Page
      title="Intents"
      actions={
        atLeast(member.role, 'admin') ? (
          <Link className="button primary" to="/intents/new">
            New intent
          </Link>
        ) : undefined
      }
    >
      <p className="lead">What the assistant recognises in a customer's message, and how it answers.</p>
      <TryMessage lead="What the assistant would make of a customer's message, as you type: the intent, its entities and the reply. Nothing is stored or counted." />
      {list.data && <ToReview intents={list.data.items} />}
      {atLeast(member.role, 'admin') && <Templates />}
      {list.isPending ? (
        <Loading />
      ) : list.isError ? (
        <ErrorState error={list.error} retry={() => void list.refetch()} />
      ) : list.data.items.length === 0 ? (
        <Empty>No intent yet.</Empty>
      ) : (
        <div className="card table-wrap">
          <table className="table">
            <thead>
              <tr>
                <th scope="col">Name</th>
                <th scope="col" className="wide-only">
                  Description
                </th>
                <th scope="col" className="wide-only">
                  Action
                </th>
                <th scope="col">State</th>
                <th scope="col">Hits</th>
              </tr>
            </thead>
            <tbody>
              {[...list.data.items]
                .sort((a, b) => b.hitCount - a.hitCount || a.name.localeCompare(b.name))
                .map((i) => (
                  <tr key={i.id}>
                    <th scope="row">
                      <Link to={`/intents/${i.id}`}>{i.name}</Link>
                    </th>
                    <td className="truncate wide-only">{i.description || <span className="muted">—</span>}</td>
                    <td className="wide-only">
                      {i.action === 'escalate'
                        ? 'Hands over to a person'
                        : i.action === 'call'
                          ? 'Looks it up'
                          : 'Replies'}
                    </td>
                    <td>
                      <Badge value={i.enabled ? 'enabled' : 'disabled'} />
                      {i.needsReview ? (
                        <>
                          {' '}
                          <Badge value="to review" kind="warning" />
                        </>
                      ) : i.starter ? (
                        <>
                          {' '}
                          <Badge value="starter" kind="muted" />
                        </>
                      ) : null}
                    </td>
                    <td>{i.hitCount}</td>
                  </tr>
                ))}
            </tbody>
          </table>
        </div>
      )}
    </Page>
  );
}

/** Starter intents switched off once because their replies stated facts the team never wrote. */
function ToReview({ intents }: { intents: Array<Pick<Intent, 'id' | 'name' | 'needsReview'>> }) {
  const due = intents.filter((i) => i.needsReview);
  if (due.length === 0) return null;
  return (
    <section className="card notice" aria-labelledby="review-title">
      <h2 id="review-title">Starter intents to review</h2>
      <p>
        These starter intents were switched off: their replies stated facts about your business (prices, times,
        policies) that your team never wrote. Rewrite each reply with your own facts and switch it on, or delete it.
        Until then your help articles answer these questions.
      </p>
      <ul>
        {due.map((i) => (
          <li key={i.id}>
            <Link to={`/intents/${i.id}`}>{i.name}</Link>
          </li>
        ))}
      </ul>
    </section>
  );
}

/** Common topics to start from: each reply has blanks for the business's own facts. */
function Templates() {
  const { api } = useApp();
  const templates = useQuery({
    queryKey: ['intent-templates'],
    queryFn: () => ok(api.GET('/api/v1/admin/intent-templates')),
    staleTime: Infinity,
  });
  if (!templates.data) return null;
  return (
    <section className="card" aria-labelledby="templates-title">
      <h2 id="templates-title">Start from a template</h2>
      <p className="muted">
        Common questions with the phrases customers use. You write the answer: each reply has blanks in [brackets] for
        your own facts.
      </p>
      <ul className="inline-list">
        {templates.data.items.map((t) => (
          <li key={t.key}>
            <Link to={`/intents/new?template=${encodeURIComponent(t.key)}`}>{t.title}</Link>
          </li>
        ))}
      </ul>
    </section>
  );
}

const blank: IntentInput = {
  name: '',
  description: '',
  trainingPhrases: [],
  response: '',
  entities: [],
  action: 'reply',
  enabled: true,
};

function IntentEditor({ id }: { id: string | null }) {
  const { api } = useApp();
  const member = useMember();
  const intent = useQuery({
    queryKey: ['intent', id],
    queryFn: () => ok(api.GET('/api/v1/admin/intents/{id}', { params: { path: { id: id! } } })),
    enabled: id !== null,
  });
  const templateKey = useSearchParams()[0].get('template');
  const templates = useQuery({
    queryKey: ['intent-templates'],
    queryFn: () => ok(api.GET('/api/v1/admin/intent-templates')),
    staleTime: Infinity,
    enabled: id === null && templateKey !== null,
  });
  const template: Template | null = templates.data?.items.find((t) => t.key === templateKey) ?? null;
  const title =
    id === null
      ? template
        ? `New intent: ${template.title}`
        : 'New intent'
      : intent.data
        ? `Intent ${intent.data.name}`
        : 'Intent';
  const waiting = (id !== null && intent.isPending) || (id === null && templateKey !== null && templates.isPending);
  return (
    <Page title={title}>
      <p>
        <Link to="/intents">All intents</Link>
      </p>
      {waiting ? (
        <Loading />
      ) : id !== null && intent.isError ? (
        <ErrorState error={intent.error} retry={() => void intent.refetch()} />
      ) : (
        <IntentForm
          key={template?.key ?? 'blank'}
          id={id}
          initial={intent.data ?? template ?? null}
          readOnly={!atLeast(member.role, 'admin')}
        />
      )}
    </Page>
  );
}

/** The entities of an intent: a row each (name, type, pattern for a regex, the question to ask), added and removed. */
function EntitiesFieldset({
  entities,
  setEntities,
  error,
}: {
  entities: Row[];
  setEntities: (entities: Row[]) => void;
  error: string | undefined;
}) {
  return (
    <fieldset className="entities">
      <legend>Entities</legend>
      {error && <p className="field-error">{error}</p>}
      {entities.length === 0 && <p className="muted">No entity: the response has no placeholders to fill.</p>}
      {entities.map((en, i) => (
        <div className="entity-row" key={en.key}>
          <Field label={`Entity ${i + 1} name`}>
            {(p) => (
              <input
                {...p}
                value={en.name}
                onChange={(e) => setEntities(entities.map((x, j) => (j === i ? { ...x, name: e.target.value } : x)))}
              />
            )}
          </Field>
          <Field label={`Entity ${i + 1} type`}>
            {(p) => (
              <select
                {...p}
                value={en.type}
                onChange={(e) =>
                  setEntities(entities.map((x, j) => (j === i ? { ...x, type: e.target.value as Entity['type'] } : x)))
                }
              >
                {ENTITY_TYPES.map((t) => (
                  <option key={t} value={t}>
                    {t}
                  </option>
                ))}
              </select>
            )}
          </Field>
          {en.type === 'regex' && (
            <Field label={`Entity ${i + 1} pattern`}>
              {(p) => (
                <input
                  {...p}
                  value={en.pattern ?? ''}
                  onChange={(e) =>
                    setEntities(entities.map((x, j) => (j === i ? { ...x, pattern: e.target.value } : x)))
                  }
                  maxLength={200}
                />
              )}
            </Field>
          )}
          <Field
            label={`Entity ${i + 1}: ask when missing`}
            hint="Optional. The assistant asks this and answers once the customer gives it."
          >
            {(p) => (
              <input
                {...p}
                value={en.prompt ?? ''}
                placeholder="Which order is it?"
                onChange={(e) => setEntities(entities.map((x, j) => (j === i ? { ...x, prompt: e.target.value } : x)))}
                maxLength={300}
              />
            )}
          </Field>
          <button type="button" onClick={() => setEntities(entities.filter((_, j) => j !== i))}>
            Remove entity {i + 1}
          </button>
        </div>
      ))}
      <button
        type="button"
        onClick={() => setEntities([...entities, { name: '', type: 'order_id', key: crypto.randomUUID() }])}
      >
        Add an entity
      </button>
    </fieldset>
  );
}

/** The form's state for an intent, a template or a blank one. */
function formOf(start: Intent | Template | typeof blank) {
  return {
    name: start.name,
    description: start.description ?? '',
    phrases: (start.trainingPhrases ?? []).join('\n'),
    response: start.response,
    entities: (start.entities ?? []).map((e) => ({ ...e, key: crypto.randomUUID() })) as Row[],
    action: start.action ?? 'reply',
    enabled: 'enabled' in start ? start.enabled : true,
    lookUp:
      'integrationId' in start
        ? { integrationId: start.integrationId ?? '', failureResponse: start.failureResponse ?? '' }
        : { integrationId: '', failureResponse: '' },
  };
}
type FormState = ReturnType<typeof formOf>;
type SetField = <K extends keyof FormState>(k: K, v: FormState[K]) => void;

/** The body the API takes, from the form: phrases a line each, the lookup only for a call. */
function bodyOf(form: FormState): IntentInput {
  return {
    name: form.name.trim(),
    description: form.description,
    response: form.response,
    action: form.action,
    enabled: form.enabled,
    ...(form.action === 'call'
      ? {
          integrationId: form.lookUp.integrationId,
          ...(form.lookUp.failureResponse.trim() ? { failureResponse: form.lookUp.failureResponse.trim() } : {}),
        }
      : {}),
    trainingPhrases: form.phrases
      .split('\n')
      .map((s) => s.trim())
      .filter(Boolean),
    entities: form.entities.map((en) => ({
      name: en.name,
      type: en.type,
      ...(en.type === 'regex' ? { pattern: en.pattern ?? '' } : {}),
      // A question to ask makes the entity required; without one, a placeholder's entity is still asked for plainly.
      ...(en.prompt?.trim() ? { required: true, prompt: en.prompt.trim() } : {}),
    })),
  };
}

/** Name, description, training phrases and the response (with the placeholders it can use). */
function IntentTexts({ form, set, errors }: { form: FormState; set: SetField; errors: FieldErrors }) {
  const placeholders = form.entities.map((e) => `{{${e.name}}}`).filter((p) => p !== '{{}}');
  const unfilled = BLANK.exec(form.response)?.[0] ?? null;
  return (
    <>
      <Field
        label="Name"
        {...errors.field('name')}
        hint="Lowercase letters, digits and underscores, starting with a letter. Name it for what customers ask (order_status): the assistant reads the name as one more phrase. An intent named greeting, goodbye, thanks or human_agent also knows the everyday ways customers say it."
      >
        {(p) => (
          <input {...p} value={form.name} onChange={(e) => set('name', e.target.value)} required maxLength={64} />
        )}
      </Field>
      <Field label="Description" {...errors.field('description')}>
        {(p) => (
          <input {...p} value={form.description} onChange={(e) => set('description', e.target.value)} maxLength={500} />
        )}
      </Field>
      <Field
        label="Training phrases"
        {...errors.field('trainingPhrases')}
        hint="One per line: ways a customer says it."
      >
        {(p) => <textarea {...p} rows={6} value={form.phrases} onChange={(e) => set('phrases', e.target.value)} />}
      </Field>
      <Field
        label="Response"
        {...errors.field('response')}
        hint={`What the assistant answers. ${unfilled ? `Fill in the blank ${unfilled} with your own facts. ` : ''}${placeholders.length ? `Placeholders: ${placeholders.join(', ')} (the assistant asks for a missing one first).` : 'Add entities to use {{name}} placeholders.'} From your settings: {{hours}}, {{openNow}}, {{nextOpen}}, {{contactEmail}} (without a value there, the assistant gives its fallback instead).`}
      >
        {(p) => (
          <textarea
            {...p}
            rows={3}
            value={form.response}
            onChange={(e) => set('response', e.target.value)}
            maxLength={2000}
          />
        )}
      </Field>
    </>
  );
}

function IntentForm({
  id,
  initial,
  readOnly,
}: {
  id: string | null;
  initial: Intent | Template | null;
  readOnly: boolean;
}) {
  const { api } = useApp();
  const qc = useQueryClient();
  const navigate = useNavigate();
  const created = (useLocation().state as { saved?: boolean } | null)?.saved === true;
  const [form, setForm] = useState(() => formOf(initial ?? blank));
  const set: SetField = (k, v) => setForm((f) => ({ ...f, [k]: v }));
  const save = useMutation({
    mutationFn: (body: IntentInput) =>
      id
        ? ok(api.PUT('/api/v1/admin/intents/{id}', { params: { path: { id } }, body }))
        : ok(api.POST('/api/v1/admin/intents', { body })),
    onSuccess: (saved) => {
      void qc.invalidateQueries({ queryKey: ['intents'] });
      qc.setQueryData(['intent', saved.id], saved);
      // The editor of the new id replaces this one: it says "Saved" from the navigation's state.
      if (!id) navigate(`/intents/${saved.id}`, { replace: true, state: { saved: true } });
    },
  });
  const remove = async () => {
    await ok(api.DELETE('/api/v1/admin/intents/{id}', { params: { path: { id: id! } } }));
    void qc.invalidateQueries({ queryKey: ['intents'] });
    navigate('/intents');
  };
  const errors = useFieldErrors(save.error, {
    name: 'Name',
    description: 'Description',
    trainingPhrases: 'Training phrases',
    response: 'Response',
    entities: 'Entities',
    action: 'Action',
    integrationId: 'Action to call',
    failureResponse: 'When the lookup fails',
  });

  const submit = (e: FormEvent) => {
    e.preventDefault();
    save.mutate(bodyOf(form));
  };
  const unfilled = BLANK.exec(form.response)?.[0] ?? null;
  const review = initial && 'needsReview' in initial && initial.needsReview;

  return (
    <form onSubmit={submit} className="card form" noValidate>
      <fieldset disabled={readOnly}>
        {readOnly && <p className="notice">Your role can read intents; an admin can change them.</p>}
        {review && (
          <p className="notice">
            Switched off for review: this starter reply stated facts about your business that your team never wrote.
            Write your own facts, then switch it on.
          </p>
        )}
        <IntentTexts form={form} set={set} errors={errors} />
        <EntitiesFieldset
          entities={form.entities}
          setEntities={(v) => set('entities', v)}
          error={errors.message('entities')}
        />
        <Field label="Action" {...errors.field('action')}>
          {(p) => (
            <select
              {...p}
              value={form.action}
              onChange={(e) => set('action', e.target.value as IntentInput['action'] & string)}
            >
              <option value="reply">Reply</option>
              <option value="escalate">Reply and hand over to a person (opens a ticket)</option>
              <option value="call">Look it up in your system, then reply</option>
            </select>
          )}
        </Field>
        {form.action === 'call' && (
          <LookItUp
            value={form.lookUp}
            onChange={(v) => set('lookUp', v)}
            intentName={form.name.trim()}
            response={form.response}
            entityNames={form.entities.map((e) => e.name).filter(Boolean)}
            errors={errors}
          />
        )}
        <div className="check">
          <input
            id="intent-enabled"
            type="checkbox"
            checked={form.enabled}
            onChange={(e) => set('enabled', e.target.checked)}
          />
          <label htmlFor="intent-enabled">Enabled (a disabled intent is never detected)</label>
        </div>
        <FormError error={save.error} fields={errors} />
        {(save.isSuccess || (created && save.isIdle)) && (
          <p role="status" className="success">
            Saved. The next chat message uses it.
          </p>
        )}
        {!readOnly && (
          <div className="row">
            <button type="submit" className="primary" disabled={save.isPending || unfilled !== null}>
              {id ? 'Save the intent' : 'Create the intent'}
            </button>
            {id && (
              <Confirm
                trigger={
                  <button type="button" className="danger">
                    Delete
                  </button>
                }
                title="Delete this intent?"
                danger
                body={<p>The assistant stops recognising “{form.name}” at once. This cannot be undone.</p>}
                confirmLabel="Delete the intent"
                onConfirm={remove}
              />
            )}
          </div>
        )}
      </fieldset>
    </form>
  );
}
