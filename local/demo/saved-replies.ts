// The demo tenant's saved replies (`npm start` saves them through POST /admin/saved-replies), so
// that the reply box's `/` offers something on a first visit. Written for this project, in the
// demo shop's voice; the placeholders are those the dashboard fills in before sending.

export const demoSavedReplies = [
  {
    shortcut: 'hello',
    title: 'Greeting',
    body: 'Hi {{visitor.name}}, this is {{agent.name}} from Demo Shop. Thanks for waiting, I am looking into it now.',
  },
  {
    shortcut: 'tracking',
    title: 'Where to find tracking',
    body: 'Your tracking link is in the shipping confirmation email and under My Account > Orders. If it has not moved for 3 working days, tell me and I will ask the courier.',
  },
  {
    shortcut: 'resolved',
    title: 'Closing the ticket',
    body: 'Glad that is sorted, {{visitor.name}}. I will close this ticket now; just write here if anything else comes up.',
  },
];
