// The demo tenant's help centre (`npm start` imports it through POST /admin/articles/import), so
// that a newcomer sees answers taken from articles at once. Written for this project.

const HELP = 'https://help.demo-shop.example';

export const demoArticles = [
  {
    title: 'Shipping times and costs',
    url: `${HELP}/shipping`,
    tags: ['delivery', 'orders'],
    questions: ['When will my parcel arrive?', 'Do you deliver on Saturdays?'],
    body: [
      'Orders placed before 2 pm on a working day leave our warehouse the same day.',
      '',
      '| Option | Time | Cost |',
      '|---|---|---|',
      '| Standard | 3 to 5 working days | free over $50, else $4.90 |',
      '| Express | 1 to 2 working days | $9.90 |',
      '| Saturday delivery | the next Saturday | $14.90 |',
      '',
      'Saturday delivery is offered at checkout for addresses in the mainland. We do not deliver on Sundays or public holidays.',
    ].join('\n'),
  },
  {
    title: 'Returns and exchanges',
    url: `${HELP}/returns`,
    tags: ['returns'],
    questions: ['Can I swap an item for another size?', 'Who pays for return postage?'],
    body: [
      'You have **30 days** from delivery to send an item back, unworn and with its labels.',
      '',
      '1. Open *My Account > Orders* and choose **Return an item**.',
      '2. Print the free return label, or show the QR code at any drop-off point.',
      '3. Pack the item in its original box.',
      '',
      'For an exchange, pick the new size or colour in step 1: we ship it as soon as your return is scanned. Sale items can be returned too.',
    ].join('\n'),
  },
  {
    title: 'Payment methods we accept',
    url: `${HELP}/payment-methods`,
    tags: ['payment'],
    questions: ['Can I pay in instalments?', 'Do you accept gift cards as payment?'],
    body: [
      'We accept Visa, Mastercard and American Express, PayPal, Apple Pay and Google Pay.',
      '',
      'Orders over $100 can be paid in three interest-free instalments with Klarna: choose it on the payment page.',
      'Demo Shop gift cards can be combined with any other method. We do not accept cash on delivery or cheques.',
    ].join('\n'),
  },
  {
    title: 'Resetting your password',
    url: `${HELP}/password`,
    tags: ['account'],
    questions: ['The reset link has expired', 'I never got the password email'],
    body: [
      'On the sign-in page, choose **Forgot password?** and enter the email address of your account.',
      'We send a link that works for 60 minutes; a new request cancels the old link.',
      '',
      'No email after a few minutes? Check your spam folder, and make sure you used the address you signed up with.',
    ].join('\n'),
  },
  {
    title: 'Demo Shop Rewards: loyalty points',
    url: `${HELP}/rewards`,
    tags: ['rewards', 'account'],
    questions: ['How do I earn points?', 'Do my reward points expire?'],
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
    questions: ['Can you wrap my order as a present?', 'Can I hide the price on the receipt?'],
    body: [
      'Tick **This is a gift** at checkout to have each item wrapped in recycled paper for $3.',
      'You can add a message of up to 200 characters: we print it on a card, and the packing slip shows no prices.',
    ].join('\n'),
  },
];
