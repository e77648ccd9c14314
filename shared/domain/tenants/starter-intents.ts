import type { EntitySpec } from '#shared/nlu/intents/entities.ts';

export interface StarterIntent {
  name: string;
  description: string;
  trainingPhrases: string[];
  response: string;
  entities: EntitySpec[];
  action: 'reply' | 'escalate';
}

// The intents every new tenant (an online shop) starts with, so that chat works at once.
// Phrases are varied on purpose (short and long, formal and casual, with typos) because the
// classifier learns from these alone.
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
    // The assistant cannot see orders: it says where the status is, and never makes one up.
    response: "I can't see the status of order {{order_id}} from here; its tracking link is in your shipping email and under My Account > Orders.",
    entities: [{
      name: 'order_id', type: 'order_id', required: true,
      prompt: 'Which order is it? Please give me the order number from your confirmation email.',
    }],
    action: 'reply',
  },
  {
    name: 'refund',
    description: 'The customer wants money back.',
    trainingPhrases: [
      'I want a refund', 'can I get a refund', 'refund please', 'how do I get my money back', 'I want my money back',
      'refund my order', 'request a refund for order 12345', 'when will I get my refund', 'where is my refund',
      'my refund has not arrived', 'how long do refunds take', 'I was promised a refund', 'can you refund me',
      'I would like to be reimbursed', 'give me my money back', 'refund status', 'the item was faulty, I want a refund',
      'how do refunds work', 'can I get reimbursed for a damaged item', 'I cancelled but was not refunded',
      'please process my refund',
    ],
    response: 'Refunds go back to your original payment method within 5 to 10 working days after we receive the item.',
    entities: [{ name: 'order_id', type: 'order_id' }],
    action: 'reply',
  },
  {
    name: 'returns',
    description: 'The customer wants to return or exchange an item.',
    trainingPhrases: [
      'how do I return an item', 'I want to return my order', 'return policy', 'what is your return policy',
      'can I send it back', 'how do I send this back', 'I need a return label', 'can I exchange this for another size',
      'exchange an item', 'the shoes do not fit, can I swap them', 'how many days do I have to return something',
      'is return shipping free', 'I received the wrong item', 'I got a damaged product', 'start a return',
      'can I return a sale item', 'where do I send my return', 'returning a gift', 'I changed my mind about my purchase',
      'the item is broken, what do I do',
    ],
    response: 'You can return items within 30 days of delivery. Open My Account > Orders and choose "Return an item" to print a free return label.',
    entities: [],
    action: 'reply',
  },
  {
    name: 'shipping',
    description: 'Delivery options, costs and times.',
    trainingPhrases: [
      'how much is shipping', 'do you offer free shipping', 'shipping costs', 'how long does delivery take',
      'do you ship internationally', 'do you deliver to canada', 'what are the delivery options', 'express delivery',
      'can I get next day delivery', 'which courier do you use', 'delivery times', 'how fast do you ship',
      'is there a minimum order for free delivery', 'can I change my delivery address', 'do you ship to po boxes',
      'shipping to europe', 'can I pick up in store', 'how much does express shipping cost',
      'when will you ship if I order today',
    ],
    response: 'Orders placed before 2 pm on a working day leave the same day. Standard delivery takes 3 to 5 working days and costs $4.90, free on orders over $50; express delivery takes 1 to 2 working days and costs $9.90.',
    entities: [],
    action: 'reply',
  },
  {
    name: 'cancel_order',
    description: 'The customer wants to cancel an order.',
    trainingPhrases: [
      'cancel my order', 'I want to cancel my order', 'how do I cancel an order', 'can I cancel order 12345',
      'please cancel my purchase', 'I ordered by mistake', 'stop my order', 'I no longer want my order',
      'cancel the order I just placed', 'is it too late to cancel', 'can I still cancel my order',
      'I need to cancel order #77213', 'cancel purchase', 'undo my order', 'I placed a duplicate order, cancel one',
      'how to cancel', 'remove my order',
    ],
    response: 'Orders can be cancelled until they ship: open My Account > Orders, choose the order and click "Cancel order". Once it has shipped, you can return it instead.',
    entities: [{ name: 'order_id', type: 'order_id' }],
    action: 'reply',
  },
  {
    name: 'payment_problem',
    description: 'Payment failed, was declined or charged twice.',
    trainingPhrases: [
      'my payment failed', 'my card was declined', 'payment declined', 'I was charged twice', 'double charged',
      'why was my card rejected', 'payment not going through', 'checkout is not working', 'I cannot pay',
      'there is a wrong charge on my card', 'which payment methods do you accept', 'can I pay with paypal',
      'do you take apple pay', 'can I pay in installments', 'my promo code does not work', 'the discount code is invalid',
      'I was charged but did not get an order confirmation', 'the payment page gives an error', 'can I pay by bank transfer',
      'unknown charge from your shop',
    ],
    response: 'Sorry about the payment trouble. We accept Visa, Mastercard, American Express, PayPal, Apple Pay and Google Pay. If you were charged twice, the extra authorisation is released automatically within 3 working days.',
    entities: [],
    action: 'reply',
  },
  {
    name: 'account_help',
    description: 'Login, password and account settings.',
    trainingPhrases: [
      'I forgot my password', 'reset my password', 'I cannot log in', 'cannot login to my account', 'how do I change my password',
      'my account is locked', 'how do I create an account', 'sign up', 'how do I delete my account',
      'change my email address', 'update my account details', 'I did not get the password reset email',
      'login not working', 'how do I change my shipping address in my account', 'how to register',
      'I want to close my account', 'update my phone number', 'unsubscribe me from your newsletter',
      'two factor code not arriving', 'my username is not recognised',
    ],
    response: 'You can reset your password from the login page ("Forgot password"). Account details, addresses and email preferences are under My Account.',
    entities: [],
    action: 'reply',
  },
  {
    name: 'opening_hours',
    description: 'Opening hours of the shop and of customer service.',
    trainingPhrases: [
      'what are your opening hours', 'when are you open', 'opening times', 'are you open on sunday', 'what time do you close',
      'when does customer service open', 'business hours', 'are you open today', 'what time do you open tomorrow',
      'are you open on public holidays', 'when can I call you', 'store hours', 'what are your support hours',
      'is the shop open now', 'hours of operation', 'are you open on weekends',
    ],
    response: 'Our customer service is available Monday to Friday 9:00 to 18:00 and Saturday 10:00 to 16:00.',
    entities: [],
    action: 'reply',
  },
  {
    name: 'contact_info',
    description: 'How to reach the shop by phone, email or address.',
    trainingPhrases: [
      'what is your phone number', 'how can I contact you', 'what is your email address', 'where are you located',
      'what is your address', 'contact details', 'can I call you', 'how do I reach customer service', 'do you have a store near me',
      'where is your shop', 'email address for support', 'phone number for customer support', 'how do I get in touch',
      'do you have a physical store', 'where is your warehouse',
    ],
    response: 'You can reach us at support@example.com or +1 555 0100, Monday to Friday 9:00 to 18:00 and Saturday 10:00 to 16:00.',
    entities: [],
    action: 'reply',
  },
  {
    name: 'product_info',
    description: 'Stock, sizes and product details.',
    trainingPhrases: [
      'is this item in stock', 'when will this be back in stock', 'do you have this in size medium', 'what sizes do you have',
      'what is this made of', 'do you have it in blue', 'is this product available', 'size guide', 'what size should I order',
      'does this come with a warranty', 'how long is the warranty', 'product dimensions', 'is this item waterproof',
      'do you sell gift cards', 'are your products vegan', 'do you restock sold out items', 'tell me more about this product',
      'is the blue shirt available in large', 'do you have these jeans in size 32', 'are the black sneakers still in stock',
      'does this jacket come in other colours', 'is the green sweater sold out', 'have you got the white trainers in a 9',
    ],
    response: 'You will find sizes, materials and stock on each product page. Sold-out items usually come back within 2 to 3 weeks; use "Notify me" to get an email.',
    entities: [],
    action: 'reply',
  },
  {
    name: 'complaint',
    description: 'The customer is unhappy with the service.',
    trainingPhrases: [
      'I want to make a complaint', 'this is unacceptable', 'I am very unhappy with your service', 'terrible service',
      'I am really disappointed', 'your service is awful', 'worst shopping experience ever', 'I want to file a complaint',
      'the courier was rude', 'nobody answers my emails', 'I have been waiting for weeks and nobody helps',
      'this is the third time this happened', 'very poor quality', 'I am not satisfied at all', 'I am so angry right now',
      'complaint about my last order',
    ],
    response: 'I am sorry to hear that. Please tell me what happened, or ask for a human agent and someone from our team will take over.',
    entities: [],
    action: 'reply',
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
