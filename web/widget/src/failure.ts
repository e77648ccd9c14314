import { ApiError } from './transport.ts';
import type { PanelRef } from './views/panel.ts';
import { failureText, type NoticeAction } from './views/notice.ts';

// A failed call: the customer is told what went wrong, with one action (usually to try again);
// the site's developer is told in the console what to fix on their side.

/** Any error as the transport's; one that is not (a bug) is logged and taken as the service failing. */
export const asApiError = (err: unknown) => {
  if (err instanceof ApiError) return err;
  console.error('SupportWidget:', err);
  return new ApiError('failing');
};

/** Says what went wrong, with one action; `retry` waits out Retry-After first, and runs by itself then. */
export type Fail = (err: unknown, retry: (() => void) | null, action?: NoticeAction) => void;

/** `signed`: whether the site gave the visitor's signature (a refused identity without one asks to sign in). */
export function createFail(ui: PanelRef, signed: () => boolean): Fail {
  return (err, retry, action) => {
    const view = ui();
    let e = asApiError(err);
    // Refused for want of a signature the site never gave: the customer is to sign in, not again.
    if (e.failure === 'identity' && !signed()) e = new ApiError('sign-in', null, e.message);
    const retryAction = retry && {
      label: 'Try again',
      run: retry,
      after: e.retryAfter ?? 0,
      whenOnline: e.failure === 'offline',
    };
    view.notice.show(failureText(e, !!retry && !action), action ?? retryAction ?? undefined);
    view.scrollDown();
    if (e.failure === 'origin') {
      console.error(
        `SupportWidget: ${location.origin} is not one of this widget's allowed origins (widget.allowedOrigins in the settings).`,
      );
    } else if (e.failure === 'key') {
      console.error('SupportWidget: the widget key was refused; check data-widget-key.');
    } else if (e.failure === 'refused' && /visitor/.test(e.message)) {
      console.error(
        `SupportWidget: the visitor's facts were refused (${e.message}); check data-user-* or SupportWidget.identify().`,
      );
    } else if (e.failure === 'identity' || e.failure === 'sign-in') {
      console.error(
        `SupportWidget: the visitor was refused (${e.message}); check data-user-hash or SupportWidget.identify().`,
      );
    }
  };
}
