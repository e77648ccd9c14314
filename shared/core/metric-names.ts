// The custom metrics the functions emit (CloudWatch embedded metric format) and the alarms watch:
// one declaration read by both the runtime and the stack, so a renamed metric cannot orphan its alarm.

export const METRICS_NAMESPACE = 'SupportAssistant';
/** The one `service` dimension every function emits with, whatever its route. */
export const METRICS_SERVICE = 'support-assistant';

export const METRIC = {
  /** A chat message answered by an intent, by an article, or by the fallback. */
  answerIntent: 'AnswerIntent',
  answerArticle: 'AnswerArticle',
  answerFallback: 'AnswerFallback',
  escalations: 'Escalations',
  /** A delivery that failed every retry (or was refused at delivery). */
  deliveriesFailed: 'DeliveriesFailed',
  /** A request answered 5xx by a function: a bug (500, logged with its request id) or a dependency unavailable (503). */
  serverErrors: 'ServerErrors',
} as const;
