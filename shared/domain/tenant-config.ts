import { PRIORITIES, type Priority } from '#shared/core/vocabulary.ts';

// The settings `config` keys the service understands, read with their defaults. Validation of
// writes lives with the settings schema; reads here tolerate anything and fall back.

export const DEFAULTS = {
  greeting: 'Hi! How can I help you today?',
  fallbackMessage: "Sorry, I didn't quite get that. Could you rephrase it, or ask to talk to a person?",
  confidenceThreshold: 0.5,
  defaultPriority: 'medium' as Priority,
};

const at = (config: Record<string, unknown>, section: string, key: string): unknown =>
  (config[section] as Record<string, unknown> | undefined)?.[key];

export function tenantSettings(config: Record<string, unknown>) {
  const fallback = at(config, 'assistant', 'fallbackMessage');
  const threshold = at(config, 'nlu', 'confidenceThreshold');
  const priority = at(config, 'escalation', 'defaultPriority');
  return {
    fallbackMessage: typeof fallback === 'string' && fallback ? fallback : DEFAULTS.fallbackMessage,
    confidenceThreshold: typeof threshold === 'number' && threshold >= 0 && threshold <= 1 ? threshold : DEFAULTS.confidenceThreshold,
    defaultPriority: PRIORITIES.includes(priority as Priority) ? (priority as Priority) : DEFAULTS.defaultPriority,
  };
}
