import { ASSISTANT_DEFAULTS, PRIORITIES, type Priority } from '#shared/core/vocabulary.ts';
import { DEFAULT_ARTICLE_THRESHOLD, DEFAULT_INTENT_THRESHOLD } from '#shared/nlu/index.ts';
import { BusinessHoursSchema, openState, type BusinessHours } from './business-hours.ts';

// The settings `config` keys the service understands, read with their defaults. Validation of
// writes lives with the settings schema; reads here tolerate anything and fall back.

export const DEFAULTS = {
  ...ASSISTANT_DEFAULTS,
  confidenceThreshold: DEFAULT_INTENT_THRESHOLD,
  defaultPriority: 'medium' as Priority,
  knowledgeThreshold: DEFAULT_ARTICLE_THRESHOLD,
};

const at = (config: Record<string, unknown>, section: string, key: string): unknown =>
  (config[section] as Record<string, unknown> | undefined)?.[key];

export const THEME_DEFAULTS = { color: '#2563eb', position: 'right' as const };

export function tenantSettings(config: Record<string, unknown>) {
  const greeting = at(config, 'assistant', 'greeting');
  const fallback = at(config, 'assistant', 'fallbackMessage');
  const threshold = at(config, 'nlu', 'confidenceThreshold');
  const priority = at(config, 'escalation', 'defaultPriority');
  const kbThreshold = at(config, 'knowledge', 'threshold');
  return {
    greeting: typeof greeting === 'string' && greeting ? greeting : DEFAULTS.greeting,
    fallbackMessage: typeof fallback === 'string' && fallback ? fallback : DEFAULTS.fallbackMessage,
    confidenceThreshold:
      typeof threshold === 'number' && threshold >= 0 && threshold <= 1 ? threshold : DEFAULTS.confidenceThreshold,
    defaultPriority: PRIORITIES.includes(priority as Priority) ? (priority as Priority) : DEFAULTS.defaultPriority,
    knowledgeEnabled: at(config, 'knowledge', 'enabled') !== false,
    knowledgeThreshold:
      typeof kbThreshold === 'number' && kbThreshold >= 0 && kbThreshold <= 1
        ? kbThreshold
        : DEFAULTS.knowledgeThreshold,
  };
}

/** The widget's theme: `widget.theme` as kept, over the defaults; the title defaults to the tenant's name. */
export function widgetTheme(config: Record<string, unknown>, tenantName: string) {
  const theme = at(config, 'widget', 'theme');
  const t = theme && typeof theme === 'object' ? (theme as Record<string, unknown>) : {};
  return {
    ...t,
    color:
      typeof t.color === 'string' && /^#[0-9a-fA-F]{3}([0-9a-fA-F]{3})?$/.test(t.color)
        ? t.color
        : THEME_DEFAULTS.color,
    position: t.position === 'left' ? ('left' as const) : THEME_DEFAULTS.position,
    title: typeof t.title === 'string' && t.title.trim() ? t.title : tenantName,
  };
}

/** `businessHours` as kept (null: always open), and `widget.replyTime` (null: none given). */
export function availability(config: Record<string, unknown>, now: Date) {
  const parsed = config.businessHours === undefined ? null : BusinessHoursSchema.safeParse(config.businessHours);
  const hours = parsed?.success ? (parsed.data as BusinessHours) : null;
  const replyTime = at(config, 'widget', 'replyTime');
  return {
    ...openState(hours, now),
    timezone: hours?.timezone ?? null,
    replyTime: typeof replyTime === 'string' && replyTime ? replyTime : null,
  };
}
