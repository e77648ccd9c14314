import type { NoneIndex } from '#shared/nlu/index.ts';

/** The parts of the answer policy's decision that a none example can overrule. */
interface Overrulable {
  nlu: {
    intent: { name: string } | null;
    confidence?: number;
    entities: Record<string, string>;
    reply: string;
    pending?: unknown;
  };
  knowledge: { title: string; reply: string } | null;
  settings: { fallbackMessage: string };
}

/**
 * The answer of `decision` unless the team's `none` examples say otherwise: an intent or an article
 * whose answer the message resembles less than it resembles a none example falls back.
 */
export function applyNone<D extends Overrulable>(
  none: NoneIndex,
  text: string,
  decision: D,
  messageVector?: Float32Array,
): D {
  if (none.size === 0) return decision;
  const { nlu, knowledge, settings } = decision;
  if (nlu.intent && none.vetoes(text, { intent: nlu.intent.name }, messageVector, nlu.confidence)) {
    return {
      ...decision,
      nlu: { ...nlu, intent: null, entities: {}, reply: settings.fallbackMessage, pending: null },
      knowledge: null,
    };
  }
  if (knowledge && none.vetoes(text, { texts: [knowledge.title, knowledge.reply] }, messageVector))
    return { ...decision, knowledge: null };
  return decision;
}
