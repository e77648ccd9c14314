// Small talk is the same at every business: the kinds of intent that state no fact about it, each
// known by the names a team gives it (lower case with underscores, as the intents route checks).
// The assistant teaches these intents everyday phrases (assistant/everyday.ts); the unanswered list
// never marks their answers (unanswered-marks.ts).

export const SMALL_TALK_KINDS: Record<string, readonly string[]> = {
  greeting: ['greeting', 'greetings', 'hello', 'hi', 'welcome'],
  goodbye: ['goodbye', 'bye', 'farewell'],
  thanks: ['thanks', 'thank_you', 'thankyou'],
  human_agent: [
    'human_agent',
    'human',
    'agent',
    'talk_to_human',
    'speak_to_human',
    'talk_to_agent',
    'speak_to_agent',
    'live_agent',
    'real_person',
    'handoff',
    'escalate',
  ],
};

const SMALL_TALK = new Set(Object.values(SMALL_TALK_KINDS).flat());

/** Small talk or asking for a person: an intent named for one of these kinds states no fact about the business. */
export const isSmallTalk = (name: string) => SMALL_TALK.has(name);

const PERSON = new Set(SMALL_TALK_KINDS.human_agent);
/** An intent named for asking for a person. */
export const namedForPerson = (name: string) => PERSON.has(name);

/** Words that name a person of the team: a clause without one is not read as asking for a person. */
const PERSON_WORDS =
  /\b(?:person|people|human|humans|agent|agents|someone|somebody|anyone|anybody|staff|representative|rep|manager|supervisor|operator|employee)\b/i;
export const namesPerson = (text: string) => PERSON_WORDS.test(text);
