import type { Visitor } from './types.ts';
import { mount, type Handle } from './widget.ts';

// Entry point of widget.js. The embed tag:
//   <script src="https://cdn.example/widget.js" data-widget-key="wk_..." async></script>
// Options (data- attributes of that tag): data-widget-key (required), data-api-url (default: the
// origin that served this script), data-open ("true": open once loaded), data-position ("left" or
// "right": overrides the tenant's theme), data-user-id, data-user-name, data-user-email and data-user-hash
// (the site's signed-in customer, as SupportWidget.identify takes it). The only global is window.SupportWidget.

declare global {
  interface Window {
    SupportWidget?: Handle;
  }
}

function boot(script: HTMLScriptElement) {
  const widgetKey = script.dataset.widgetKey?.trim();
  if (!widgetKey) {
    console.error('SupportWidget: the script tag needs data-widget-key="wk_..."');
    return;
  }
  let apiBase: string;
  try {
    apiBase = new URL(script.dataset.apiUrl || script.src, location.href).origin;
  } catch {
    console.error('SupportWidget: data-api-url is not a URL');
    return;
  }
  const position = script.dataset.position;
  const d = script.dataset;
  const handle = mount({
    widgetKey,
    apiBase,
    open: script.dataset.open === 'true',
    ...(position === 'left' || position === 'right' ? { position } : {}),
    visitor: d.userId
      ? ({
          userId: d.userId,
          name: d.userName,
          email: d.userEmail,
          userHash: d.userHash,
          emailHash: d.userEmailHash,
        } as Visitor)
      : null,
  });
  window.SupportWidget = {
    open: handle.open,
    close: handle.close,
    identify: handle.identify,
    logout: handle.logout,
    destroy() {
      handle.destroy();
      delete window.SupportWidget;
    },
  };
}

// currentScript is set while a classic script (async too) runs; the selector is for the rare loader that hides it.
const script = (document.currentScript ??
  document.querySelector('script[data-widget-key]')) as HTMLScriptElement | null;
if (window.SupportWidget) {
  // Embedded twice: one widget is enough.
} else if (script) {
  if (document.body) boot(script);
  else document.addEventListener('DOMContentLoaded', () => boot(script), { once: true });
}
