// The demo tenant's help centre (`npm start` imports it through POST /admin/articles/import), so
// that a newcomer sees answers taken from articles at once. Written for this project. Prices are in
// dollars, like the starter intents' replies and the demo shop page. Every Markdown block reads as
// whole sentences once reduced to plain text (no tables), because answers are passages of that text.

const HELP = 'https://help.demo-shop.example';

export const demoArticles = [
  {
    title: 'Shipping times and costs',
    url: `${HELP}/shipping`,
    tags: ['delivery', 'orders'],
    questions: ['how much is delivery?', 'when will my parcel come', 'do u deliver on saturdays'],
    body: [
      'Orders placed before 2 pm on a working day leave our warehouse the same day.',
      '',
      '- Standard delivery takes 3 to 5 working days and costs $4.90, and is free on orders over $50.',
      '- Express delivery takes 1 to 2 working days and costs $9.90.',
      '- Saturday delivery arrives the next Saturday and costs $14.90. Choose it at checkout; it is offered for addresses on the mainland.',
      '',
      'We do not deliver on Sundays or public holidays.',
    ].join('\n'),
  },
  {
    title: 'Returns and exchanges',
    url: `${HELP}/returns`,
    tags: ['returns'],
    questions: [
      'can i send it back if i dont like it?',
      'can I swap the beans for another blend',
      'who pays the postage for a return',
    ],
    body: [
      'You have **30 days** from delivery to send back anything unopened, in its original packaging: coffee, tea or equipment.',
      'Sale items can be returned too. The return label is free.',
      '',
      '1. Open *My Account > Orders* and choose "Return an item".',
      '2. Print the free return label, or show the QR code at any drop-off point.',
      '3. Pack the item in its original box.',
      '',
      'Want an exchange, for example another blend or grind? Choose the new item when you start the return, and we ship it as soon as your return is scanned.',
    ].join('\n'),
  },
  {
    title: 'Payment methods we accept',
    url: `${HELP}/payment-methods`,
    tags: ['payment'],
    questions: ['do you take paypal?', 'can i pay in instalments', 'can I use a gift card to pay'],
    body: [
      'We accept Visa, Mastercard, American Express, PayPal, Apple Pay and Google Pay.',
      '',
      'Orders over $100 can be paid in three interest-free instalments with Klarna: choose it on the payment page.',
      'Demo Shop gift cards can be combined with any other method. We do not accept cash on delivery or cheques.',
    ].join('\n'),
  },
  {
    title: 'Resetting your password',
    url: `${HELP}/password`,
    tags: ['account'],
    questions: ['forgot my password, the reset link doesnt work', 'i never got the password email'],
    body: [
      'On the sign-in page, choose "Forgot password" and enter the email address of your account.',
      'We send a link that works for 60 minutes; a new request cancels the old link.',
      '',
      'No email after a few minutes? Check your spam folder, and make sure you used the address you signed up with.',
    ].join('\n'),
  },
  {
    title: 'Demo Shop Rewards: loyalty points',
    url: `${HELP}/rewards`,
    tags: ['rewards', 'account'],
    questions: ['how do i get points', 'do my reward points run out?'],
    body: [
      'Every dollar you spend earns one point once your order is delivered. 100 points are worth a $5 voucher, which you can',
      'turn on in *My Account > Rewards* and use on your next order.',
      '',
      'Points expire 12 months after the order that earned them. Returned items take their points back.',
    ].join('\n'),
  },
  {
    title: 'Gift wrapping and gift messages',
    url: `${HELP}/gifts`,
    tags: ['gifts', 'orders'],
    questions: [
      'can you wrap my order as a present and add a note?',
      'will the price be on the receipt if i send a gift',
    ],
    body: [
      'Tick "This is a gift" at checkout to have each item wrapped in recycled paper for $3.',
      'You can add a message of up to 200 characters: we print it on a card, and the packing slip shows no prices.',
    ].join('\n'),
  },
];
