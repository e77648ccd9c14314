import { h, sr } from './dom.ts';

// The cards under the conversation: asking for a person, and rating the help once a ticket is resolved.

/** The request for a person; `reason` is prefilled, and required when there is no conversation yet. */
export function escalateCard(
  reason: string,
  required: boolean,
  onRequest: (reason: string) => void,
  onCancel: () => void,
  away: string | null = null,
) {
  const field = h('textarea', { id: 'sw-reason', maxlength: 500, rows: 3, required });
  field.value = reason.slice(0, 500);
  const submit = h('button', { type: 'submit', class: 'btn btn-primary' }, 'Request a person');
  const form = h(
    'form',
    {
      class: 'card',
      onsubmit: (e) => {
        e.preventDefault();
        onRequest(field.value.trim());
      },
    },
    h('label', { class: 'title', for: 'sw-reason' }, 'What do you need help with?'),
    h(
      'p',
      { class: 'hint', id: 'sw-reason-hint' },
      away
        ? `${away} Your request is kept, and a person from our team will reply when they are back.`
        : 'A person from our team will read this conversation and reply here.',
    ),
    field,
    h(
      'div',
      { class: 'row' },
      submit,
      h(
        'button',
        {
          type: 'button',
          class: 'btn',
          onclick: () => {
            form.remove();
            onCancel();
          },
        },
        'Cancel',
      ),
    ),
  );
  field.setAttribute('aria-describedby', 'sw-reason-hint');
  return { form, field, submit };
}

/** A score from 1 to 5 and an optional comment; `onRate` runs once a score is chosen. */
export function ratingCard(onRate: (score: number, comment: string) => void) {
  let score = 0;
  const stars = h(
    'div',
    { class: 'stars' },
    ...[1, 2, 3, 4, 5].map((n) =>
      h(
        'label',
        null,
        h('input', {
          type: 'radio',
          name: 'sw-score',
          value: n,
          required: true,
          onchange: () => {
            score = n;
          },
        }),
        h('span', null, String(n), sr(n === 1 ? ' (poor)' : n === 5 ? ' (excellent)' : '')),
      ),
    ),
  );
  const comment = h('textarea', { id: 'sw-comment', maxlength: 1000, rows: 2 });
  const submit = h('button', { type: 'submit', class: 'btn btn-primary' }, 'Send rating');
  const form = h(
    'form',
    {
      class: 'card rating',
      onsubmit: (e) => {
        e.preventDefault();
        if (score) onRate(score, comment.value.trim());
      },
    },
    h('fieldset', null, h('legend', null, 'How would you rate the help you got? (1 = poor, 5 = excellent)'), stars),
    h('label', { class: 'sr', for: 'sw-comment' }, 'Comment (optional)'),
    comment,
    h('div', { class: 'row' }, submit),
  );
  comment.setAttribute('placeholder', 'Anything to add? (optional)');
  return {
    form,
    submit,
    thank() {
      const thanks = h('p', { class: 'card', tabindex: '-1' }, 'Thank you for your rating!');
      form.replaceWith(thanks);
      thanks.focus();
    },
  };
}

/**
 * The address for the reply while the team is away. `hint` says when it is back; `onSend` gets a
 * well-formed address (the browser's own email check) and the card's answer functions.
 */
export function emailCard(hint: string, onSend: (email: string) => void) {
  const field = h('input', {
    id: 'sw-email',
    type: 'email',
    autocomplete: 'email',
    maxlength: 254,
    required: true,
    'aria-describedby': 'sw-email-hint',
  });
  const error = h('p', { class: 'field-error', id: 'sw-email-error', hidden: true });
  const submit = h('button', { type: 'submit', class: 'btn btn-primary' }, 'Send my email');
  const invalid = (text: string | null) => {
    error.hidden = !text;
    error.textContent = text ?? '';
    if (text) {
      field.setAttribute('aria-invalid', 'true');
      field.setAttribute('aria-describedby', 'sw-email-hint sw-email-error');
      field.focus();
    } else {
      field.removeAttribute('aria-invalid');
      field.setAttribute('aria-describedby', 'sw-email-hint');
    }
  };
  const form = h(
    'form',
    {
      class: 'card',
      novalidate: true,
      onsubmit: (e) => {
        e.preventDefault();
        field.value = field.value.trim();
        if (!field.value) invalid('Please enter your email address.');
        else if (!field.checkValidity()) invalid('Please enter a valid email address, like name@example.com.');
        else {
          invalid(null);
          onSend(field.value);
        }
      },
    },
    h('label', { class: 'title', for: 'sw-email' }, 'Your email address'),
    h('p', { class: 'hint', id: 'sw-email-hint' }, hint),
    field,
    error,
    h('div', { class: 'row' }, submit),
  );
  return {
    form,
    field,
    submit,
    invalid,
    /**
     * The confirmation, as an item of the conversation (the card leaves): it takes its place among the
     * messages by time, so later messages come under it, never above.
     */
    done(email: string): { item: HTMLLIElement; text: string; focus: () => void } {
      const text = `Thank you! We'll reply to ${email}.`;
      const thanks = h('p', { class: 'card', tabindex: '-1', role: 'status' }, text);
      form.remove();
      return { item: h('li', { class: 'msg msg-note' }, thanks), text, focus: () => thanks.focus() };
    },
  };
}
