// Truth benchmark: does the assistant speak only for the business? `npx tsx test/bench/answers/truth.ts`
// (bench:answers prints it too). New tenants as they really start, through the HTTP API of a local
// runtime started in this process: onboarded (starter content kept), the team's own help articles
// imported, its business hours set, vectors indexed; then every customer question of
// test/fixtures/truth/*.json asked with POST /chat/message in a conversation of its own (a
// question the assistant answers with one of its own, "which order?", gets the fixture's `then`).
// Three figures, each on the tuning messages and on the held-out ones (`heldOut: true`, never looked
// at while tuning):
// - answers stating a fact absent from the team's content and settings (target 0): every number,
//   price, time, percentage, email address and phone number of a reply must appear in the tenant's
//   intents, articles or settings, or in the customer's own message; an order status word
//   ("shipped", "on its way"...) must too. The ticket number an escalation names is the service's own.
// - article questions answered from the right article (target >= 90 %);
// - unanswerable questions answered honestly, by the fallback or a hand-over (target >= 90 %);
// beside them the hours questions answered from the settings' hours, the order questions that
// got the number asked for or handed over with it, no status made up, and the messages that ask
// for a person (often beside a problem an article touches) handed over at once.
import { randomUUID } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import type { LocalRuntime } from '../../../local/runtime.ts';

process.env.POWERTOOLS_LOG_LEVEL ??= 'CRITICAL';
process.env.AWS_LAMBDA_LOG_LEVEL ??= 'CRITICAL';

type Kind = 'article' | 'unanswerable' | 'hours' | 'order' | 'handover';
interface Question {
  kind: Kind;
  text: string;
  article?: string;
  then?: string;
  heldOut: boolean;
}
interface Desk {
  business: string;
  trade: string;
  businessHours: Record<string, unknown>;
  articles: Array<{ title: string; body: string; url?: string; questions?: string[] }>;
  messages: Question[];
}
interface Reply {
  text: string;
  intent: string;
  confidence: number;
  sources: string[];
  ticket: boolean;
}
interface Outcome {
  desk: string;
  q: Question;
  replies: Reply[];
  invented: string[];
  ok: boolean;
}

// TRUTH_LOCKBOX=1: the answer policy's lockbox desks instead (test/fixtures/truth-lockbox), read by
// no tuning decision: measured once, after every choice (docs/decisions/008-answer-policy-coverage.md).
const DIR = fileURLToPath(
  new URL(
    process.env.TRUTH_LOCKBOX === '1' ? '../../fixtures/truth-lockbox/' : '../../fixtures/truth/',
    import.meta.url,
  ),
);
export const truthDesks = (): Desk[] =>
  readdirSync(DIR)
    .filter((f) => f.endsWith('.json'))
    .sort()
    .map((f) => JSON.parse(readFileSync(DIR + f, 'utf8')) as Desk);

// What counts as a fact in a reply: prices, percentages, times, emails, phone numbers, other numbers.
const FACTS = [
  /[$£€]\s?\d[\d,]*(?:\.\d+)?/g,
  /[\w.+-]+@[\w-]+(?:\.[\w-]+)+/g,
  /\+?\d[\d ().-]{7,}\d/g,
  /\b\d{1,2}(?::\d{2})?\s?(?:am|pm)\b/gi,
  /\b\d{1,2}:\d{2}\b/g,
  /\b\d+(?:[.,]\d+)?\s?%/g,
  /\b\d+(?:[.,]\d+)?\b/g,
];
const STATUS =
  /\b(shipped|dispatched|delivered|on (?:its|the) way|in transit|out for delivery|being processed|processing|has left|arriv(?:es|ing) (?:today|tomorrow))\b/gi;
const norm = (s: string) => s.toLowerCase().replace(/[\s,]/g, '');

/** The facts a reply states that neither the tenant's own content nor the customer's words hold. */
export function inventedFacts(reply: string, known: string, said: string): string[] {
  // The ticket number an escalation names is the service's own record, not a claim about the business.
  let rest = reply.replace(/#\d+/g, ' ');
  const found: string[] = [];
  for (const re of FACTS) {
    rest = rest.replace(re, (m) => {
      found.push(m.trim());
      return ' ';
    });
  }
  for (const m of reply.matchAll(STATUS)) found.push(m[0]);
  const haystack = norm(`${known} ${said}`);
  const digits = (s: string) => s.replace(/[^\d.:@a-z]/gi, '').toLowerCase();
  return found.filter((f) => {
    const n = norm(f);
    if (haystack.includes(n)) return false;
    // "$49" in a reply and "$49.00" or "49 dollars" in the content; "9:00" and "09:00".
    const d = digits(f).replace(/^0+(?=\d)/, '');
    return !(d && (haystack.includes(d) || haystack.includes(`0${d}`)));
  });
}

async function startRuntime() {
  const { startLocalRuntime } = await import('../../../local/runtime.ts');
  return startLocalRuntime({ tableName: 'bench-truth' });
}

/**
 * Runs every desk through the API; prints the table and returns the figures. `shared`: a runtime
 * this process already runs (the functions' database client keeps the first runtime's endpoint, so
 * a second runtime in one process would be unreachable from them); without it, one of its own.
 */
export async function truthTable(shared?: LocalRuntime) {
  const rt = shared ?? (await startRuntime());
  const call = async (
    method: string,
    path: string,
    headers: Record<string, string>,
    body?: unknown,
    attempt = 0,
  ): Promise<any> => {
    // A shared machine's database (or the runtime) can time out: try again, as a client would (a chat
    // message with its Idempotency-Key, so that it is stored once).
    const again = async () => {
      await new Promise((r) => setTimeout(r, 500 * (attempt + 1)));
      return call(method, path, headers, body, attempt + 1);
    };
    let res: Response;
    try {
      res = await fetch(`${rt.url}/api/v1${path}`, {
        method,
        headers: { ...headers, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
        ...(body === undefined ? {} : { body: JSON.stringify(body) }),
      });
    } catch (e) {
      if (attempt < 5) return again();
      throw e;
    }
    const text = await res.text();
    if ((res.status === 503 || res.status === 504 || res.status === 409) && attempt < 5 && !path.endsWith('/onboard'))
      return again();
    if (!res.ok) throw new Error(`${method} ${path}: ${res.status} ${text.slice(0, 300)}`);
    return text ? JSON.parse(text) : undefined;
  };
  const outcomes: Outcome[] = [];
  try {
    let n = 0;
    for (const desk of truthDesks()) {
      // A 503 may come after the tenant was made: onboarding is tried again as a new user (retrying it would be 409).
      let token = '';
      let widgetKey = '';
      for (let attempt = 0; !widgetKey; attempt++) {
        token = await rt.idp.token({ sub: `bench-truth-${process.pid}-${n++}` });
        try {
          ({ widgetKey } = await call(
            'POST',
            '/admin/auth/onboard',
            { authorization: `Bearer ${token}` },
            { tenantName: desk.business },
            5,
          ));
        } catch (e) {
          if (attempt >= 4) throw e;
        }
      }
      const owner = { authorization: `Bearer ${token}` };
      await call('POST', '/admin/articles/import', owner, { articles: desk.articles });
      await call('PUT', '/admin/settings', owner, {
        config: { businessHours: desk.businessHours, widget: { newConversationsPerMinute: 10_000 } },
      });
      // The team's content: the intents it wrote or edited (none here: starter content is the product's), articles, settings.
      const [intents, settings] = await Promise.all([
        call('GET', '/admin/intents', owner),
        call('GET', '/admin/settings', owner),
      ]);
      const known = [
        ...(intents.items as Array<{ response: string; starter?: boolean }>)
          .filter((i) => i.starter === false)
          .map((i) => i.response),
        ...desk.articles.flatMap((a) => [a.title, a.body, ...(a.questions ?? [])]),
        JSON.stringify(settings.config),
      ].join('\n');
      // Until the sentence vectors are in, answers come from words alone: wait, as a tenant's first customers would not.
      for (const until = Date.now() + 120_000; Date.now() < until; ) {
        const [a, i] = await Promise.all([
          call('GET', '/admin/articles?limit=100', owner),
          call('GET', '/admin/intents', owner),
        ]);
        if ([...a.items, ...i.items].every((x: { indexing?: boolean }) => !x.indexing)) break;
        await new Promise((r) => setTimeout(r, 250));
      }
      const widget = { 'x-widget-key': widgetKey };
      for (const q of desk.messages) {
        const replies: Reply[] = [];
        let conversationId: string | undefined;
        for (const text of [q.text, ...(q.then ? [q.then] : [])]) {
          const r = await call(
            'POST',
            '/chat/message',
            { ...widget, 'idempotency-key': randomUUID() },
            { message: text, ...(conversationId ? { conversationId } : {}) },
          );
          conversationId = r.conversationId;
          if (!r.message) break;
          replies.push({
            text: r.message.content,
            intent: r.metadata.intentDetected,
            confidence: r.metadata.confidence,
            ticket: Boolean(r.metadata.ticketId),
            sources: (r.metadata.sources ?? []).map((s: { title: string }) => s.title),
          });
          // A follow-up only answers the assistant's own question.
          if (
            r.metadata.ticketId ||
            r.metadata.intentDetected === 'fallback' ||
            r.metadata.intentDetected === 'knowledge_base'
          )
            break;
        }
        const said = [q.text, q.then ?? ''].join(' ');
        const invented = replies.flatMap((r) => inventedFacts(r.text, known, said));
        outcomes.push({ desk: desk.business, q, replies, invented, ok: judge(q, replies, desk, invented) });
      }
    }
  } finally {
    if (!shared) await rt.stop();
  }
  return report(outcomes);
}

/** Whether the answer is the one the question should get (besides stating no invented fact). */
function judge(q: Question, replies: Reply[], desk: Desk, invented: string[]): boolean {
  const first = replies[0];
  if (!first || invented.length) return false;
  if (q.kind === 'article') return first.intent === 'knowledge_base' && first.sources[0] === q.article;
  if (q.kind === 'unanswerable') return first.intent === 'fallback' || first.ticket;
  // The customer asks for a person (beside a problem an article may touch): a ticket, at once.
  if (q.kind === 'handover') return first.ticket;
  if (q.kind === 'hours') {
    // Answered from the settings' hours: every time of the week named, and nothing else answered.
    const times = Object.values(desk.businessHours.weekly as Record<string, string[][]>).flat(2);
    return times.every((t) => first.text.includes(t));
  }
  // Order status: the number is handed to the team (asked for first when missing); no status made up.
  const last = replies.at(-1)!;
  const number = /([A-Z]{2}-)?\d{4,}/.exec(`${q.text} ${q.then ?? ''}`)?.[0];
  return last.ticket && number !== undefined && last.text.includes(number);
}

const pct = (k: number, n: number) => (n ? `${((100 * k) / n).toFixed(1)} % (${k}/${n})` : '-');

function report(outcomes: Outcome[]) {
  const figures = (o: Outcome[]) => {
    const of = (k: Kind) => o.filter((x) => x.q.kind === k);
    const right = (xs: Outcome[]) => pct(xs.filter((x) => x.ok).length, xs.length);
    return {
      'answers with an invented fact': `${o.filter((x) => x.invented.length).length} of ${o.length}`,
      'article questions, right article': right(of('article')),
      'unanswerable, honest (fallback or hand-over)': right(of('unanswerable')),
      'hours, from the settings': right(of('hours')),
      'order status, number handed over': right(of('order')),
      'asks for a person, handed over': right(of('handover')),
    };
  };
  const rows: Record<string, ReturnType<typeof figures>> = {};
  for (const desk of [...new Set(outcomes.map((o) => o.desk))])
    rows[desk] = figures(outcomes.filter((o) => o.desk === desk));
  rows['all tuning'] = figures(outcomes.filter((o) => !o.q.heldOut));
  rows['all held out'] = figures(outcomes.filter((o) => o.q.heldOut));
  rows.all = figures(outcomes);
  console.log(
    "truth: new tenants as they start (starter content kept, the team's articles and hours), through the local runtime's HTTP API (POST /chat/message)",
  );
  console.log(
    'targets: 0 answers with an invented fact; >= 90 % article questions from the right article; >= 90 % unanswerable ones honest',
  );
  console.table(rows);
  const wrong = outcomes.filter((o) => !o.ok);
  if (wrong.length) {
    console.log('not right:');
    for (const o of wrong) {
      const r = o.replies
        .map(
          (x) =>
            `[${x.intent} ${x.confidence.toFixed(2)}${x.sources[0] ? `: ${x.sources[0]}` : ''}${x.ticket ? ', ticket' : ''}] ${x.text.slice(0, 120).replace(/\s+/g, ' ')}`,
        )
        .join(' / ');
      console.log(
        `- ${o.desk} (${o.q.kind}${o.q.heldOut ? ', held out' : ''}) "${o.q.text}"${o.invented.length ? ` invented: ${o.invented.join(', ')}` : ''} -> ${r}`,
      );
    }
  }
  return rows;
}

if (import.meta.url === `file://${process.argv[1]}`) {
  await truthTable();
  process.exit(0);
}
