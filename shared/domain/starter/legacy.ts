// The replies of the starter intents that tenants onboarded before starter content stopped stating
// facts (their delivery prices, return window, hours...) were made up for a sample shop. An intent
// still holding one of these exact texts is unedited product content: the starter review
// (shared/domain/starter/review.ts) marks it as such, and disables the ones that state facts.
export const LEGACY_STARTER_REPLIES: Readonly<Record<string, { response: string; statesFacts: boolean }>> = {
  greeting: { statesFacts: false, response: 'Hello! How can I help you today?' },
  goodbye: { statesFacts: false, response: 'Goodbye, and thanks for visiting!' },
  thanks: { statesFacts: false, response: "You're welcome! Is there anything else I can help with?" },
  order_status: {
    statesFacts: true,
    response:
      "I can't see the status of order {{order_id}} from here; its tracking link is in your shipping email and under My Account > Orders.",
  },
  refund: {
    statesFacts: true,
    response: 'Refunds go back to your original payment method within 5 to 10 working days after we receive the item.',
  },
  returns: {
    statesFacts: true,
    response:
      'You can return items within 30 days of delivery. Open My Account > Orders and choose "Return an item" to print a free return label.',
  },
  shipping: {
    statesFacts: true,
    response:
      'Orders placed before 2 pm on a working day leave the same day. Standard delivery takes 3 to 5 working days and costs $4.90, free on orders over $50; express delivery takes 1 to 2 working days and costs $9.90.',
  },
  cancel_order: {
    statesFacts: true,
    response:
      'Orders can be cancelled until they ship: open My Account > Orders, choose the order and click "Cancel order". Once it has shipped, you can return it instead.',
  },
  payment_problem: {
    statesFacts: true,
    response:
      'Sorry about the payment trouble. We accept Visa, Mastercard, American Express, PayPal, Apple Pay and Google Pay. If you were charged twice, the extra authorisation is released automatically within 3 working days.',
  },
  account_help: {
    statesFacts: true,
    response:
      'You can reset your password from the login page ("Forgot password"). Account details, addresses and email preferences are under My Account.',
  },
  opening_hours: {
    statesFacts: true,
    response: 'Our customer service is available Monday to Friday 9:00 to 18:00 and Saturday 10:00 to 16:00.',
  },
  contact_info: {
    statesFacts: true,
    response:
      'You can reach us at support@example.com or +1 555 0100, Monday to Friday 9:00 to 18:00 and Saturday 10:00 to 16:00.',
  },
  product_info: {
    statesFacts: true,
    response:
      'You will find sizes, materials and stock on each product page. Sold-out items usually come back within 2 to 3 weeks; use "Notify me" to get an email.',
  },
  complaint: {
    statesFacts: false,
    response:
      'I am sorry to hear that. Please tell me what happened, or ask for a human agent and someone from our team will take over.',
  },
  human_agent: { statesFacts: false, response: 'I am handing you over to our team.' },
};
