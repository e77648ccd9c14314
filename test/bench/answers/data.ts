// The tenants of the answer benchmark and of the calibration fit: intents, articles, and messages
// each with the answer it should get.
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { rng } from '#shared/nlu/index.ts';
import { groupOf, loadHelpDesks, type Expect, type Group } from '../../fixtures/helpdesks.ts';
import { datasetsDir, loadStackFaq, type Thread } from '../kb/data.ts';
import { loadBanking77, perLabel, stratifiedSplit } from '../nlu/data.ts';
import { banking77Split, clincSplit, deskLockbox, stackFaqSplit, type Split } from '../lockbox.ts';

export type { Expect, Group };

export interface ScenarioIntent {
  name: string;
  trainingPhrases: string[];
  response: string;
  action?: 'reply' | 'escalate';
  entities?: Array<{ name: string; type: string; required?: boolean; prompt?: string }>;
  /** Starter content, as a new tenant is given it (it gives way to the team's articles). */
  starter?: boolean;
}
export interface ScenarioArticle {
  title: string;
  body: string;
  url: string;
  questions?: string[];
  tags?: string[];
}
/** `heldOut`: never read by the calibration's fit; `lockbox`: in the lockbox (test/bench/lockbox.ts), never read by any decision. */
export interface ScenarioMessage {
  text: string;
  expect: Expect;
  group: Group;
  heldOut: boolean;
  lockbox?: boolean;
}
export interface Scenario {
  name: string;
  intents: ScenarioIntent[];
  articles: ScenarioArticle[];
  messages: ScenarioMessage[];
  /** A business held out whole: every message of it is held out. */
  unseen?: boolean;
}

type Example = [text: string, label: string];
interface Clinc {
  train: Example[];
  val: Example[];
  oos_train: Example[];
  oos_val: Example[];
}

const loadClinc = (): Clinc =>
  JSON.parse(readFileSync(resolve(datasetsDir(), 'clinc150/data_full_train_val.json'), 'utf8')) as Clinc;

export function fnv(s: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < s.length; i++) h = Math.imul(h ^ s.charCodeAt(i), 0x01000193);
  return h >>> 0;
}

const toIntents = (xs: Example[]): ScenarioIntent[] => {
  const by = new Map<string, string[]>();
  for (const [text, label] of xs) by.set(label, [...(by.get(label) ?? []), text]);
  return [...by].map(([name, trainingPhrases]) => ({ name, trainingPhrases, response: `(${name})` }));
};

const threadArticle = (t: Thread): ScenarioArticle => ({
  title: t.question,
  body: t.answers.join('\n\n'),
  url: `https://faq.example/t${fnv(t.question)}`,
});
const message = (text: string, expect: Expect, heldOut = true, lockbox = false): ScenarioMessage => ({
  text,
  expect,
  group: groupOf(expect),
  heldOut,
  lockbox,
});

/**
 * The support mix of the benchmark: CLINC150's 150 intents (train split) and half of the split's
 * StackFAQ threads (kb.ts's hash of the title) as articles; the split's CLINC150 val and
 * out-of-scope messages, that half's rephrasings and the other half's as messages. The tuning and
 * the lockbox mixes have the same intents and knowledge bases of the same size (15 articles).
 */
export function supportMix(split: Split = 'tuning'): Scenario {
  const clinc = loadClinc();
  const { val, oos } = clincSplit(clinc, split);
  const threads = stackFaqSplit(loadStackFaq(), split);
  const inKb = (t: Thread) => fnv(t.question) % 2 === 0;
  const kb = threads.filter(inKb);
  const lockbox = split === 'lockbox';
  return {
    name: `support mix (${split})`,
    intents: toIntents(clinc.train),
    articles: kb.map(threadArticle),
    messages: [
      ...val.map(([text, label]) => message(text, { intent: label }, true, lockbox)),
      ...kb.flatMap((t) => t.rephrasings.map((r) => message(r, { article: t.question }, true, lockbox))),
      ...oos.map(([text]) => message(text, { fallback: true }, true, lockbox)),
      ...threads
        .filter((t) => !inKb(t))
        .flatMap((t) => t.rephrasings.map((r) => message(r, { fallback: true }, true, lockbox))),
    ],
  };
}

/**
 * Tuning data of the same kind that the benchmark's support mix never shows as messages:
 * CLINC150's training split cut 80 / 20 per intent (the 20 % asked), the tuning part's
 * out-of-scope messages; the tuning part's StackFAQ threads cut by another hash than the benchmark's, with `questions` (three rephrasings) on a
 * third of the articles and `intentCount` intents drawn from the 150, so that small and large
 * tenants are both seen.
 */
export function tuningMix(seed: number, intentCount = 150, maxPhrases = Number.POSITIVE_INFINITY): Scenario {
  const clinc = loadClinc();
  const rand = rng(seed);
  const labels = [...new Set(clinc.train.map(([, l]) => l))].sort(() => rand() - 0.5).slice(0, intentCount);
  const keep = new Set(labels);
  const train: Example[] = [];
  const asked: Example[] = [];
  const count = new Map<string, number>();
  const trained = new Map<string, number>();
  for (const x of clinc.train) {
    if (!keep.has(x[1])) continue;
    const k = count.get(x[1]) ?? 0;
    count.set(x[1], k + 1);
    if (k % 5 === seed % 5) asked.push(x);
    else if ((trained.get(x[1]) ?? 0) < maxPhrases) {
      trained.set(x[1], (trained.get(x[1]) ?? 0) + 1);
      train.push(x);
    }
  }
  const outside = clinc.train.filter(([, l]) => !keep.has(l)).filter(() => rand() < 0.02);
  const threads = stackFaqSplit(loadStackFaq(), 'tuning');
  const inKb = (t: Thread) => ((fnv(`mix${seed}:${t.question}`) >>> 16) & 1) === 0;
  const articles = threads
    .filter(inKb)
    .map((t, i) => (i % 3 === 0 ? { ...threadArticle(t), questions: t.rephrasings.slice(0, 3) } : threadArticle(t)));
  const asks = (t: Thread, i: number) => (i % 3 === 0 ? t.rephrasings.slice(3) : t.rephrasings);
  return {
    name: `tuning mix ${seed} (${intentCount} intents${Number.isFinite(maxPhrases) ? ` x ${maxPhrases} phrases` : ''})`,
    intents: toIntents(train),
    articles,
    messages: [
      ...asked.map(([text, label]) => message(text, { intent: label }, false)),
      ...threads.filter(inKb).flatMap((t, i) => asks(t, i).map((r) => message(r, { article: t.question }, false))),
      ...clincSplit(clinc, 'tuning').oos.map(([text]) => message(text, { fallback: true }, false)),
      ...outside.map(([text]) => message(text, { fallback: true }, false)),
      ...threads
        .filter((t) => !inKb(t))
        .flatMap((t) => t.rephrasings.map((r) => message(r, { fallback: true }, false))),
    ],
  };
}

/**
 * Intents only, for the calibration report: BANKING77's tuning part (cut as bench:nlu cuts the
 * file: a fifth asked, the rest the tenant's phrases, `perIntent` an intent or all), asked that
 * fifth and the lockbox; CLINC150's train split asked val and the out-of-scope messages, both
 * splits'. Messages carry `lockbox`. Neither is tuning data of the fit.
 */
export function intentSets(): Scenario[] {
  const clinc = loadClinc();
  const all = loadBanking77();
  const [bankTrain, bankVal] = stratifiedSplit(banking77Split(all, 'tuning'), 0.2, 20);
  const bankLocked = banking77Split(all, 'lockbox');
  const bank = (name: string, train: Example[]): Scenario => ({
    name,
    intents: toIntents(train),
    articles: [],
    messages: [
      ...bankVal.map(([text, label]) => message(text, { intent: label })),
      ...bankLocked.map(([text, label]) => message(text, { intent: label }, true, true)),
    ],
  });
  const clincMessages = (split: Split) => {
    const { val, oos } = clincSplit(clinc, split);
    return [
      ...val.map(([text, label]) => message(text, { intent: label }, true, split === 'lockbox')),
      ...oos.map(([text]) => message(text, { fallback: true }, true, split === 'lockbox')),
    ];
  };
  return [
    bank('BANKING77 10 phrases an intent', perLabel(bankTrain, 10, 20)),
    bank('BANKING77 full', bankTrain),
    {
      name: 'CLINC150',
      intents: toIntents(clinc.train),
      articles: [],
      messages: [...clincMessages('tuning'), ...clincMessages('lockbox')],
    },
  ];
}

/** bench:kb's abstention runs as tenants on one split's threads: the threads of one fold left out, with or without 3 questions. */
export function kbAbstention(split: Split = 'tuning', variants: boolean[] = [false, true]): Scenario[] {
  const threads = stackFaqSplit(loadStackFaq(), split);
  const lockbox = split === 'lockbox';
  const fold = (t: Thread) => ((fnv(`fold:${t.question}`) >>> 16) & 1) as 0 | 1;
  const out: Scenario[] = [];
  for (const q of variants) {
    for (const leaveOut of [0, 1] as const) {
      const kept = threads.filter((t) => fold(t) !== leaveOut);
      out.push({
        name: `bench:kb ${q ? '3 questions' : 'no questions'}, fold ${leaveOut} left out${lockbox ? ' (lockbox)' : ''}`,
        intents: [],
        articles: kept.map((t) => ({
          title: t.question,
          body: t.answers.join('\n\n'),
          url: `https://faq.example/t${fnv(t.question)}`,
          ...(q ? { questions: t.rephrasings.slice(0, 3) } : {}),
        })),
        messages: threads.flatMap((t) =>
          (q ? t.rephrasings.slice(3) : t.rephrasings).map((text) =>
            fold(t) === leaveOut
              ? { text, expect: { fallback: true as const }, group: 'fallback' as const, heldOut: lockbox, lockbox }
              : { text, expect: { article: t.question }, group: 'article' as const, heldOut: lockbox, lockbox },
          ),
        ),
      });
    }
  }
  return out;
}

/** The help desks; a held-out message is in the lockbox or the tuning report's half (test/bench/lockbox.ts). */
export function helpDesks(): Scenario[] {
  return loadHelpDesks().map(({ slug, desk }) => {
    const messages = desk.messages.map((m) => message(m.text, m.expect, m.heldOut || desk.heldOut === true));
    const locked = deskLockbox(
      slug,
      messages.filter((m) => m.heldOut),
    );
    return {
      name: slug,
      intents: desk.intents,
      articles: desk.articles,
      messages: messages.map((m) => ({ ...m, lockbox: locked.has(m.text) })),
      unseen: desk.heldOut === true,
    };
  });
}
