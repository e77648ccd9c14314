import type { StarterIntent } from './starter-intents.ts';

/** An intent to start from: its reply has blanks (`[…]`) that only the team can fill. */
export interface IntentTemplate extends StarterIntent { key: string; title: string }

/** A blank of a template's reply: `[what goes here]`. The dashboard saves no reply that still has one. */
export const BLANK = /\[[^[\]\n]{1,80}\]/g;

// Common support topics, offered on the dashboard's Intents screen ("Start from a template") and
// never created by themselves: their answers are the business's own facts (its return window, its
// prices, its payment methods), which the team writes into the blanks. `{{contactEmail}}` is filled
// from the settings (docs/API.md, Placeholders from settings).
export const intentTemplates: IntentTemplate[] = [
  {
    key: 'returns',
    title: 'Returns and exchanges',
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
    response: 'You can return items within [number of days] days of delivery. [How to start a return, and who pays the postage.]',
    entities: [],
    action: 'reply',
  },
  {
    key: 'refunds',
    title: 'Refunds',
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
    response: 'Refunds go back to [where the money goes] within [how long] after [when a refund starts].',
    entities: [{ name: 'order_id', type: 'order_id' }],
    action: 'reply',
  },
  {
    key: 'shipping',
    title: 'Shipping and delivery',
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
    response: '[Where you deliver.] Standard delivery takes [how long] and costs [price]. [Faster options and their prices.]',
    entities: [],
    action: 'reply',
  },
  {
    key: 'cancel',
    title: 'Cancelling an order',
    name: 'cancel_order',
    description: 'The customer wants to cancel an order.',
    trainingPhrases: [
      'cancel my order', 'I want to cancel my order', 'how do I cancel an order', 'can I cancel order 12345',
      'please cancel my purchase', 'I ordered by mistake', 'stop my order', 'I no longer want my order',
      'cancel the order I just placed', 'is it too late to cancel', 'can I still cancel my order',
      'I need to cancel order #77213', 'cancel purchase', 'undo my order', 'I placed a duplicate order, cancel one',
      'how to cancel', 'remove my order',
    ],
    response: 'Orders can be cancelled [until when]: [how to cancel].',
    entities: [{ name: 'order_id', type: 'order_id' }],
    action: 'reply',
  },
  {
    key: 'payments',
    title: 'Payments',
    name: 'payment_problem',
    description: 'Payment methods, and payments that failed or were charged twice.',
    trainingPhrases: [
      'my payment failed', 'my card was declined', 'payment declined', 'I was charged twice', 'double charged',
      'why was my card rejected', 'payment not going through', 'checkout is not working', 'I cannot pay',
      'there is a wrong charge on my card', 'which payment methods do you accept', 'can I pay with paypal',
      'do you take apple pay', 'can I pay in installments', 'my promo code does not work', 'the discount code is invalid',
      'I was charged but did not get an order confirmation', 'the payment page gives an error', 'can I pay by bank transfer',
      'unknown charge from your shop',
    ],
    response: 'We accept [payment methods]. [What to do when a payment fails or is charged twice.]',
    entities: [],
    action: 'reply',
  },
  {
    key: 'accounts',
    title: 'Accounts and passwords',
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
    response: '[How to reset a password.] [Where account details are changed.]',
    entities: [],
    action: 'reply',
  },
  {
    key: 'products',
    title: 'Products and stock',
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
    response: '[Where sizes, materials and stock are shown.] [When sold-out items come back.]',
    entities: [],
    action: 'reply',
  },
  {
    key: 'contact',
    title: 'Contact details',
    name: 'contact_info',
    description: 'How to reach the business by email, phone or address.',
    trainingPhrases: [
      'what is your phone number', 'how can I contact you', 'what is your email address', 'where are you located',
      'what is your address', 'contact details', 'can I call you', 'how do I reach customer service', 'do you have a store near me',
      'where is your shop', 'email address for support', 'phone number for customer support', 'how do I get in touch',
      'do you have a physical store', 'where is your warehouse',
    ],
    response: 'You can write to us at {{contactEmail}}[, call us on (phone number)][, or visit us at (address)].',
    entities: [],
    action: 'reply',
  },
];

/** Every blank of the templates, word for word: a reply that still holds one was not filled in. */
export const TEMPLATE_BLANKS: ReadonlySet<string> = new Set(intentTemplates.flatMap((t) => t.response.match(BLANK) ?? []));
