import { useState, type FormEvent } from 'react';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { ASSISTANT_DEFAULTS as DEFAULTS, STARTER_THRESHOLD } from '#vocabulary';
import { ok, type Ok } from '../api/client.ts';
import { TICKET_PRIORITIES as PRIORITIES } from '../api/types.ts';
import { useApp, useMember } from '../context.tsx';
import { atLeast } from '../roles.ts';
import { HoursForm, IdentityCard } from './SettingsCustomers.tsx';
import { CustomerDataCard, LeaveCard, RetentionForm } from './SettingsData.tsx';
import {
  Confirm,
  EmbedSnippet,
  ErrorState,
  Field,
  FormError,
  Loading,
  Page,
  useFieldErrors,
  When,
} from '../ui/index.tsx';

type Settings = Ok<'/api/v1/admin/settings', 'get'>;
type Obj = Record<string, unknown>;
const obj = (v: unknown): Obj => (v && typeof v === 'object' && !Array.isArray(v) ? (v as Obj) : {});
const str = (v: unknown, d = '') => (typeof v === 'string' ? v : d);

export default function SettingsScreen() {
  const { api } = useApp();
  const settings = useQuery({ queryKey: ['settings'], queryFn: () => ok(api.GET('/api/v1/admin/settings')) });
  return (
    <Page title="Settings">
      {settings.isPending ? (
        <Loading />
      ) : settings.isError ? (
        <ErrorState error={settings.error} retry={() => void settings.refetch()} />
      ) : (
        <>
          <SettingsForm settings={settings.data} />
          <div className="grid-2 settings">
            <HoursForm settings={settings.data} />
            <IdentityCard settings={settings.data} />
          </div>
          <EmailCard settings={settings.data} />
          <div className="grid-2 settings">
            <RetentionForm settings={settings.data} />
            <CustomerDataCard />
          </div>
          <WidgetKey settings={settings.data} />
          <LeaveCard />
        </>
      )}
    </Page>
  );
}

function formOf(s: Settings) {
  const c = s.config;
  const theme = obj(obj(c.widget).theme);
  const threshold = obj(c.nlu).confidenceThreshold;
  return {
    name: s.tenant.name,
    greeting: str(obj(c.assistant).greeting),
    fallbackMessage: str(obj(c.assistant).fallbackMessage),
    // Unset stays unset: the service's calibrated default applies, and moves with it.
    threshold: typeof threshold === 'number' ? String(threshold) : '',
    defaultPriority: str(obj(c.escalation).defaultPriority, 'medium'),
    origins: (Array.isArray(obj(c.widget).allowedOrigins) ? (obj(c.widget).allowedOrigins as string[]) : []).join('\n'),
    color: /^#[0-9a-f]{6}$/i.test(str(theme.color)) ? str(theme.color) : '#1d4ed8',
    position: str(theme.position, 'right') === 'left' ? 'left' : 'right',
    title: str(theme.title, s.tenant.name),
  };
}

function SettingsForm({ settings }: { settings: Settings }) {
  const { api } = useApp();
  const qc = useQueryClient();
  const [f, setF] = useState(() => formOf(settings));
  const set = <K extends keyof typeof f>(k: K, v: (typeof f)[K]) => setF((x) => ({ ...x, [k]: v }));
  const save = useMutation({
    mutationFn: () =>
      ok(
        api.PUT('/api/v1/admin/settings', {
          body: {
            name: f.name,
            config: {
              // An empty message deletes the key (merge patch null), so the default applies.
              assistant: { greeting: f.greeting.trim() || null, fallbackMessage: f.fallbackMessage.trim() || null },
              nlu: { confidenceThreshold: f.threshold.trim() === '' ? null : Number(f.threshold) },
              escalation: { defaultPriority: f.defaultPriority },
              widget: {
                allowedOrigins: f.origins
                  .split('\n')
                  .map((s) => s.trim())
                  .filter(Boolean),
                theme: { color: f.color, position: f.position, title: f.title },
              },
            },
          },
        }),
      ),
    onSuccess: (data) => {
      qc.setQueryData(['settings'], data);
      void qc.invalidateQueries({ queryKey: ['me'] });
    },
  });
  // Errors name the merged config's path, e.g. `config.nlu.confidenceThreshold` or `config.widget.allowedOrigins.1`.
  const errors = useFieldErrors(save.error, {
    name: 'Team name',
    'config.assistant.greeting': 'Greeting',
    'config.assistant.fallbackMessage': 'Fallback message',
    'config.nlu.confidenceThreshold': 'Confidence threshold',
    'config.escalation.defaultPriority': 'Priority of new tickets',
    'config.widget.allowedOrigins': 'Allowed origins',
    'config.widget.theme.title': 'Title',
    'config.widget.theme.color': 'Colour',
    'config.widget.theme.position': 'Position',
  });
  const err = (path: string) => errors.field(path);
  const submit = (e: FormEvent) => {
    e.preventDefault();
    save.mutate();
  };

  return (
    <div className="grid-2 settings">
      <form className="card form" onSubmit={submit} noValidate aria-labelledby="assistant-h">
        <h2 id="assistant-h">Assistant</h2>
        <Field label="Team name" {...err('name')}>
          {(p) => <input {...p} value={f.name} maxLength={100} onChange={(e) => set('name', e.target.value)} />}
        </Field>
        <Field label="Greeting" {...err('config.assistant.greeting')} hint="Shown when the widget opens.">
          {(p) => (
            <textarea
              {...p}
              rows={2}
              value={f.greeting}
              placeholder={DEFAULTS.greeting}
              onChange={(e) => set('greeting', e.target.value)}
            />
          )}
        </Field>
        <Field
          label="Fallback message"
          {...err('config.assistant.fallbackMessage')}
          hint="The answer when no intent is confident enough."
        >
          {(p) => (
            <textarea
              {...p}
              rows={2}
              value={f.fallbackMessage}
              placeholder={DEFAULTS.fallbackMessage}
              onChange={(e) => set('fallbackMessage', e.target.value)}
            />
          )}
        </Field>
        <Field
          label="Confidence threshold"
          {...err('config.nlu.confidenceThreshold')}
          hint={`From 0 to 1; below it the assistant answers with the fallback message. Empty: the calibrated default. Starter intents you have not edited answer only from ${STARTER_THRESHOLD}.`}
        >
          {(p) => (
            <input
              {...p}
              type="number"
              min={0}
              max={1}
              step={0.01}
              value={f.threshold}
              placeholder="Default"
              onChange={(e) => set('threshold', e.target.value)}
            />
          )}
        </Field>
        <Field label="Priority of new tickets" {...err('config.escalation.defaultPriority')}>
          {(p) => (
            <select {...p} value={f.defaultPriority} onChange={(e) => set('defaultPriority', e.target.value)}>
              {PRIORITIES.map((x) => (
                <option key={x} value={x}>
                  {x}
                </option>
              ))}
            </select>
          )}
        </Field>
        <h2>Widget</h2>
        <Field
          label="Allowed origins"
          {...err('config.widget.allowedOrigins')}
          hint="One per line, like https://shop.example. Empty: any site may use your widget key."
        >
          {(p) => <textarea {...p} rows={3} value={f.origins} onChange={(e) => set('origins', e.target.value)} />}
        </Field>
        <Field label="Title" {...err('config.widget.theme.title')}>
          {(p) => <input {...p} value={f.title} maxLength={60} onChange={(e) => set('title', e.target.value)} />}
        </Field>
        <div className="row">
          <Field label="Colour" {...err('config.widget.theme.color')}>
            {(p) => <input {...p} type="color" value={f.color} onChange={(e) => set('color', e.target.value)} />}
          </Field>
          <Field label="Position" {...err('config.widget.theme.position')}>
            {(p) => (
              <select {...p} value={f.position} onChange={(e) => set('position', e.target.value)}>
                <option value="right">Bottom right</option>
                <option value="left">Bottom left</option>
              </select>
            )}
          </Field>
        </div>
        <FormError error={save.error} fields={errors} />
        {save.isSuccess && (
          <p role="status" className="success">
            Saved. The next chat message uses these settings.
          </p>
        )}
        <button type="submit" className="primary" disabled={save.isPending}>
          Save the settings
        </button>
      </form>
      <section className="card" aria-labelledby="preview-h">
        <h2 id="preview-h">Preview</h2>
        <WidgetPreview
          title={f.title}
          color={f.color}
          position={f.position}
          greeting={f.greeting || DEFAULTS.greeting}
        />
      </section>
    </div>
  );
}

/** Black or white text, whichever reads better on the chosen colour (WCAG relative luminance). */
function textOn(hex: string) {
  const [r, g, b] = [1, 3, 5]
    .map((i) => parseInt(hex.slice(i, i + 2), 16) / 255)
    .map((c) => (c <= 0.03928 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4));
  const l = 0.2126 * r! + 0.7152 * g! + 0.0722 * b!;
  return (l + 0.05) / 0.05 > 1.05 / (l + 0.05) ? '#000000' : '#ffffff';
}

function WidgetPreview({
  title,
  color,
  position,
  greeting,
}: {
  title: string;
  color: string;
  position: string;
  greeting: string;
}) {
  const fg = textOn(color);
  return (
    <div className={`preview preview-${position}`} aria-label="How the widget looks on your site" role="img">
      <div className="preview-panel">
        <div className="preview-head" style={{ background: color, color: fg }}>
          {title || 'Support'}
        </div>
        <div className="preview-body">
          <p className="preview-bubble">{greeting}</p>
        </div>
      </div>
      <div className="preview-launcher" style={{ background: color, color: fg }} aria-hidden="true">
        <svg viewBox="0 0 24 24" width="22" height="22" fill="currentColor" aria-hidden="true">
          <path d="M4 4h16a2 2 0 0 1 2 2v10a2 2 0 0 1-2 2H9l-5 4v-4a2 2 0 0 1-2-2V6a2 2 0 0 1 2-2z" />
        </svg>
      </div>
    </div>
  );
}

function WidgetKey({ settings }: { settings: Settings }) {
  const { api, config } = useApp();
  const member = useMember();
  const qc = useQueryClient();
  const [fresh, setFresh] = useState<string | null>(null);
  const rotate = async () => {
    const r = await ok(api.POST('/api/v1/admin/settings/widget-key'));
    setFresh(r.widgetKey);
    void qc.invalidateQueries({ queryKey: ['settings'] });
  };
  return (
    <section className="card" aria-labelledby="key-h">
      <h2 id="key-h">Widget key and embed snippet</h2>
      {fresh ? (
        <>
          <p role="status">
            The new key, shown only now. The old key stops working within a minute: update your site with this snippet.
          </p>
          <p>
            <code className="key">{fresh}</code>
          </p>
          <EmbedSnippet widgetOrigin={config.widgetOrigin} widgetKey={fresh} />
        </>
      ) : (
        <>
          <p>
            Current key <code>{settings.widgetKey.preview}</code>, created <When iso={settings.widgetKey.createdAt} />.
            The full key was shown once, when it was made; the tag on your site looks like this:
          </p>
          <pre>
            <code>{`<script src="${config.widgetOrigin}/widget.js" data-widget-key="wk_…" async></script>`}</code>
          </pre>
        </>
      )}
      {atLeast(member.role, 'owner') ? (
        <Confirm
          trigger={
            <button type="button" className="danger">
              Rotate the widget key
            </button>
          }
          title="Rotate the widget key?"
          danger
          body={
            <p>
              A new key is made and the current one stops working within a minute, so the widget on your site stops
              answering until you update its tag.
            </p>
          }
          confirmLabel="Rotate the key"
          onConfirm={rotate}
        />
      ) : (
        <p className="muted">Only an owner can rotate the key.</p>
      )}
    </section>
  );
}

const SENDER_STATUS: Record<string, string> = {
  verified: 'Verified: replies are sent from this address.',
  pending: 'Verification pending: add the DNS records SES gave for the domain; until then replies may be refused.',
  failed: 'Verification failed: SES could not find the DNS records. Add them again and restart the verification.',
  missing: 'Not verified: this address and its domain are not set up in SES, so replies from it would be refused.',
  unknown: 'Could not check the verification just now; reload to try again.',
};

/** `email.autoReply` and `email.fromAddress`, with SES's word on the address as `GET /settings` gives it. */
function EmailSendingForm({ settings }: { settings: Settings }) {
  const { api } = useApp();
  const member = useMember();
  const qc = useQueryClient();
  const email = obj(settings.config.email);
  const [autoReply, setAutoReply] = useState(str(email.autoReply, 'off') === 'knowledge');
  const [from, setFrom] = useState(str(email.fromAddress));
  const save = useMutation({
    mutationFn: () =>
      ok(
        api.PUT('/api/v1/admin/settings', {
          body: { config: { email: { autoReply: autoReply ? 'knowledge' : 'off', fromAddress: from.trim() || null } } },
        }),
      ),
    // GET says whether the new address is verified: read it again.
    onSuccess: () => void qc.invalidateQueries({ queryKey: ['settings'] }),
  });
  const errors = useFieldErrors(save.error, {
    'config.email.fromAddress': 'Send replies from',
    'config.email.autoReply': 'Answer emails automatically',
  });
  const sender = settings.emailSender;
  const submit = (e: FormEvent) => {
    e.preventDefault();
    save.mutate();
  };
  if (!atLeast(member.role, 'admin'))
    return (
      <p className="muted">
        Automatic answers are {autoReply ? 'on' : 'off'}; replies are sent from {sender?.address ?? 'the address above'}
        . Only an admin can change this.
      </p>
    );
  return (
    <form className="form email-sending" onSubmit={submit} noValidate aria-labelledby="email-sending-h">
      <h3 id="email-sending-h">Answering and sending</h3>
      <label className="check">
        <input type="checkbox" checked={autoReply} onChange={(e) => setAutoReply(e.target.checked)} />
        Answer emails automatically from your help articles when the assistant is confident (otherwise a ticket opens)
      </label>
      <Field
        label="Send replies from"
        {...errors.field('config.email.fromAddress')}
        hint="An address on a domain verified in SES. Empty: replies come from the address above."
      >
        {(p) => (
          <input
            {...p}
            type="email"
            value={from}
            maxLength={254}
            placeholder={str(email.inboundAddress)}
            onChange={(e) => setFrom(e.target.value)}
          />
        )}
      </Field>
      {sender && sender.address === from.trim() ? (
        <p role="status" className={`sender-status sender-${sender.status}`}>
          <strong>{sender.address}</strong>: {SENDER_STATUS[sender.status]}
        </p>
      ) : null}
      <FormError error={save.error && !errors.field('config.email.fromAddress').error ? save.error : null} />
      <button type="submit" className="primary" disabled={save.isPending}>
        Save email settings
      </button>
      {save.isSuccess ? (
        <span role="status" className="muted small">
          Saved.
        </span>
      ) : null}
    </form>
  );
}

/** The inbound address with the steps to forward a support mailbox to it, and the addresses that bounced. */
function EmailCard({ settings }: { settings: Settings }) {
  const { api } = useApp();
  const address = str(obj(settings.config.email).inboundAddress);
  const [copied, setCopied] = useState(false);
  const suppressed = useQuery({
    queryKey: ['suppressions'],
    queryFn: () => ok(api.GET('/api/v1/admin/settings/email/suppressions')),
  });
  const copy = async () => {
    await navigator.clipboard.writeText(address);
    setCopied(true);
  };
  return (
    <section className="card" aria-labelledby="email-h">
      <h2 id="email-h">Email</h2>
      <p>
        Customers' emails to this address become conversations in the inbox, and your replies go back to them by email.
      </p>
      <div className="inbound-address">
        <code>{address}</code>
        <button type="button" className="small-button" onClick={() => void copy()}>
          Copy address
        </button>
        <span role="status" className="muted small">
          {copied ? 'Copied.' : ''}
        </span>
      </div>
      <h3>Forward your support mailbox here</h3>
      <ol>
        <li>
          In your mail provider (Google Workspace, Microsoft 365, your host), open the settings of the support mailbox,
          such as support@your-shop.
        </li>
        <li>
          Add a forwarding address: paste <code>{address}</code>, and confirm it if the provider asks (its confirmation
          mail arrives in this inbox).
        </li>
        <li>
          Forward every message, keeping a copy if you like. Send yourself a test mail: it appears in the inbox within
          seconds.
        </li>
        <li>
          To reply from your own address, verify its domain in Amazon SES (or ask us to) and enter the address below
          under <i>Send replies from</i>.
        </li>
      </ol>
      <EmailSendingForm settings={settings} />
      <h3>Addresses we no longer email</h3>
      {suppressed.isPending ? (
        <Loading />
      ) : suppressed.isError ? (
        <ErrorState error={suppressed.error} retry={() => void suppressed.refetch()} />
      ) : suppressed.data.items.length === 0 ? (
        <p className="muted">None: no reply has bounced or been marked as spam.</p>
      ) : (
        <ul>
          {suppressed.data.items.map((x) => (
            <li key={x.email}>
              <code>{x.email}</code> {x.reason === 'bounce' ? 'bounced' : 'marked as spam'} <When iso={x.createdAt} />
            </li>
          ))}
        </ul>
      )}
    </section>
  );
}
