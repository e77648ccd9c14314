import { KNOWLEDGE_INTENT } from '#shared/core/vocabulary.ts';
import type { Metadata } from '#shared/data/conversations.ts';
import type { Tenant } from '#shared/data/tenants.ts';
import { decide } from '#shared/domain/assistant/assistant.ts';

// `email.autoReply: knowledge`: the assistant's own answer policy (the chat's, not a copy) decides
// whether a help article answers the email; only an article's confident answer goes out, with a
// line saying how to reach a person. Anything else is the team's.

export const REACH_A_PERSON = 'If this does not answer your question, reply to this email to reach a person.';

export async function autoAnswer(
  tenant: Tenant,
  subject: string,
  text: string,
): Promise<{ content: string; metadata: Metadata } | null> {
  const { nlu, knowledge } = await decide(tenant, `${subject}\n${text}`.trim(), true);
  if (!knowledge) return null;
  return {
    content: `${knowledge.reply}\n\n${REACH_A_PERSON}`,
    metadata: {
      intentDetected: KNOWLEDGE_INTENT,
      confidence: knowledge.confidence,
      entitiesExtracted: {},
      intentRanking: nlu.ranking,
      sources: knowledge.sources,
      ...(knowledge.format ? { format: knowledge.format } : {}),
    },
  };
}
