import { palette } from '../colour.ts';
import { h, icon, ICONS } from './dom.ts';

// The launcher: the round button that opens and closes the panel, with its unread badge, in a
// shadow root of its own at the end of the page's body. It is all a page builds while the chat is
// closed; the panel (panel.ts) and its sheet are built on first use.

declare const __WIDGET_LAUNCHER_CSS__: string;

export interface LauncherActions {
  toggle(): void;
  close(): void;
  /** The customer may be about to open the chat (the pointer over the launcher, or focus on it). */
  warm(): void;
}

export type Launcher = ReturnType<typeof buildLauncher>;

/** A sheet added to the widget's shadow root, after those it has. */
export function adoptStyles(shadow: ShadowRoot, css: string) {
  if ('adoptedStyleSheets' in Document.prototype) {
    // A constructed sheet: no <style> element, so a CSP without 'unsafe-inline' allows it.
    const sheet = new CSSStyleSheet();
    sheet.replaceSync(css);
    shadow.adoptedStyleSheets = [...shadow.adoptedStyleSheets, sheet];
  } else {
    shadow.append(h('style', null, css));
  }
}

export function buildLauncher(actions: LauncherActions) {
  const hostEl = document.createElement('div');
  hostEl.setAttribute('data-support-widget', '');
  const shadow = hostEl.attachShadow({ mode: 'open' });
  adoptStyles(shadow, __WIDGET_LAUNCHER_CSS__);

  const badge = h('span', { class: 'badge', 'aria-hidden': 'true', hidden: true });
  const chatIcon = icon(ICONS.chat);
  // The open panel's icon, made on first open.
  let downIcon: SVGSVGElement | null = null;
  const launcher = h(
    'button',
    {
      type: 'button',
      class: 'launcher',
      'aria-expanded': 'false',
      'aria-controls': 'sw-panel',
      onclick: () => actions.toggle(),
      onpointerenter: () => actions.warm(),
      onfocus: () => actions.warm(),
    },
    chatIcon,
    badge,
  );
  const root = h(
    'div',
    {
      class: 'root',
      onkeydown: (e) => {
        if ((e as KeyboardEvent).key === 'Escape' && root.classList.contains('open')) {
          e.stopPropagation();
          actions.close();
        }
      },
    },
    launcher,
  );
  shadow.append(root);

  // What is on the page now: a call that would change nothing leaves the page's DOM alone (no
  // style recalculation or frame for it).
  let accent = '';
  let said = '';

  const view = {
    hostEl,
    shadow,
    root,
    launcher,

    /** Sets the theme through the CSSOM (no style attribute strings): allowed under a strict CSP. */
    applyTheme(colour?: string) {
      const p = palette(colour);
      if (p.accent === accent) return;
      accent = p.accent;
      root.style.setProperty('--sw-accent', p.accent);
      root.style.setProperty('--sw-on-accent', p.onAccent);
      root.style.setProperty('--sw-accent-text', p.accentText);
    },

    position(left: boolean) {
      root.classList.toggle('left', left);
    },

    /** `name`: the tenant's title, once known. */
    labelLauncher(name: string | undefined, isOpen: boolean, unread: number) {
      // Until the tenant's settings arrive there is no name to give: "Open chat", not "Open chat chat".
      const what = name ? `${name} chat` : 'chat';
      const label = isOpen ? 'Close chat' : unread ? `Open ${what}, ${unread} unread` : `Open ${what}`;
      if (`${label}/${unread}` === said) return;
      said = `${label}/${unread}`;
      launcher.setAttribute('aria-label', label);
      launcher.setAttribute('aria-expanded', String(isOpen));
      if (isOpen) {
        downIcon ??= icon(ICONS.down);
        chatIcon.replaceWith(downIcon);
      } else downIcon?.replaceWith(chatIcon);
      badge.hidden = unread === 0;
      badge.textContent = String(unread);
    },

    remove() {
      hostEl.remove();
    },
  };
  view.applyTheme();
  document.body.append(hostEl);
  return view;
}
