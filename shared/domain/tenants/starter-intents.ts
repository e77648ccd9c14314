import type { EntitySpec } from '#shared/nlu/intents/entities.ts';

export interface StarterIntent {
  name: string;
  description: string;
  trainingPhrases: string[];
  response: string;
  entities: EntitySpec[];
  action: 'reply' | 'escalate';
}

// The intents every new tenant starts with, so that chat works at once. They state nothing about
// the business that its team did not write (docs/API.md, Starter content): small talk, the
// hand-over, the hours from the tenant's own settings, and the order number asked for and handed
// to the team. Topics whose answers are the business's own facts (returns, shipping, payments...)
// are templates with blanks instead (intent-templates.ts). Phrases are varied on purpose (short and
// long, formal and casual, with typos) because the classifier learns from these alone.
export const starterIntents: StarterIntent[] = [
  {
    name: 'greeting',
    description: 'The customer says hello.',
    trainingPhrases: [
      'hi', 'hello', 'hey', 'hi there', 'hello there', 'hey there', 'good morning', 'good afternoon',
      'good evening', 'hiya', 'howdy', 'yo', 'greetings', 'hey, anyone there?', 'hello, is someone there',
      'hi, I have a question', 'hello! how are you?', 'hey how is it going', 'good morning, can you help me',
      'hi team', 'hellooo', 'heya', 'morning!', 'hi bot',
    ],
    response: 'Hello! How can I help you today?',
    entities: [],
    action: 'reply',
  },
  {
    name: 'goodbye',
    description: 'The customer ends the conversation.',
    trainingPhrases: [
      'bye', 'goodbye', 'bye bye', 'see you', 'see you later', 'see ya', 'talk to you later', 'have a nice day',
      'have a good one', 'that is all for now', "that's all, bye", 'I have to go now', 'gotta go', 'ciao',
      'farewell', 'good night', 'catch you later', "ok bye", 'nothing else, goodbye', "I'm done, bye",
      'take care', 'until next time',
    ],
    response: 'Goodbye, and thanks for visiting!',
    entities: [],
    action: 'reply',
  },
  {
    name: 'thanks',
    description: 'The customer says thank you.',
    trainingPhrases: [
      'thanks', 'thank you', 'thank you so much', 'thanks a lot', 'many thanks', 'thx', 'ty', 'cheers',
      'thanks for your help', 'thank you very much', 'great, thanks', 'perfect thank you', 'that helped, thanks',
      'much appreciated', 'I appreciate it', 'awesome thanks', 'ok thanks', 'thanks, that answers my question',
      'you have been very helpful', 'brilliant, cheers',
    ],
    response: "You're welcome! Is there anything else I can help with?",
    entities: [],
    action: 'reply',
  },
  {
    name: 'order_status',
    description: 'The customer asks where an order is or when it will arrive.',
    trainingPhrases: [
      'where is my order', 'where is my order 12345', 'what is the status of my order', 'order status',
      'track my order', 'can you track order #48213', 'has my order shipped yet', 'when will my order arrive',
      "my order hasn't arrived", 'my package has not arrived yet', 'where is my package', 'where is my parcel',
      'I am still waiting for my order', 'tracking number for order 99812', 'is my order on the way',
      'check order ORD-20931', 'my order 55321 is late', 'when does my delivery come', 'order 7731 status please',
      'has order 100234 been dispatched', 'how long until my order gets here', 'I ordered last week and nothing came',
      'can you tell me where my stuff is', 'any update on my order?', 'status of order number 884422',
    ],
    // The assistant cannot see orders: it asks for the number and hands it to the team, who can.
    response: "I can't look up order {{order_id}} myself, so I'm passing it to our team with its number.",
    entities: [{
      name: 'order_id', type: 'order_id', required: true,
      prompt: 'Which order is it? Please give me the order number from your confirmation email.',
    }],
    action: 'escalate',
  },
  {
    name: 'opening_hours',
    description: 'Opening hours of the shop and of customer service, from the business hours in the settings.',
    trainingPhrases: [
      'what are your opening hours', 'when are you open', 'opening times', 'are you open on sunday', 'what time do you close',
      'when does customer service open', 'business hours', 'are you open today', 'what time do you open tomorrow',
      'are you open on public holidays', 'when can I call you', 'store hours', 'what are your support hours',
      'is the shop open now', 'hours of operation', 'are you open on weekends',
    ],
    // Without business hours in the settings the placeholder has no value, and the answer falls back.
    response: 'Our hours are {{hours}}. Right now we are {{openNow}}.',
    entities: [],
    action: 'reply',
  },
  {
    name: 'complaint',
    description: 'The customer is unhappy with the service: a person takes over.',
    trainingPhrases: [
      'I want to make a complaint', 'this is unacceptable', 'I am very unhappy with your service', 'terrible service',
      'I am really disappointed', 'your service is awful', 'worst shopping experience ever', 'I want to file a complaint',
      'the courier was rude', 'nobody answers my emails', 'I have been waiting for weeks and nobody helps',
      'this is the third time this happened', 'very poor quality', 'I am not satisfied at all', 'I am so angry right now',
      'complaint about my last order',
    ],
    response: "I'm sorry to hear that. I'm passing this conversation to our team.",
    entities: [],
    action: 'escalate',
  },
  {
    name: 'human_agent',
    description: 'The customer wants a person: escalate to a ticket.',
    trainingPhrases: [
      'I want to talk to a human', 'talk to a human', 'speak to an agent', 'can I speak to a real person',
      'connect me with customer service', 'I need a human', 'let me talk to someone', 'transfer me to an operator',
      'human please', 'agent', 'real person please', 'I want to speak with a representative', 'get me a manager',
      'you are not helping, I want a person', 'can someone from your team call me', 'live chat with a person',
      'is there a human I can talk to', 'escalate this please', 'I would like to speak to customer support staff',
      'stop the bot, get me a person',
    ],
    response: 'I am handing you over to our team.',
    entities: [{ name: 'email', type: 'email' }],
    action: 'escalate',
  },
];
