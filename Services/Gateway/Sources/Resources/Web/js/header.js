// The app's header (sign-in or account link, the count of books waiting for the patron) and the patron's theme: apart
// from app.js, so that views that change them import this, not the app that imports them.
import { api, session } from './api.js';

/** The patron's theme for the whole app (the reader applies the rest of the settings). */
export function applyTheme(theme) {
  document.body.classList.remove('theme-day', 'theme-sepia', 'theme-night');
  document.body.classList.add(`theme-${theme || 'day'}`);
}

/** The header: "Sign in" or "Account", and the count of books waiting for the patron's action. */
export async function refreshHeader() {
  const link = document.getElementById('account-link');
  const badge = document.getElementById('waiting-badge');
  link.textContent = session.signedIn ? 'Account' : 'Sign in';
  link.setAttribute('href', session.signedIn ? '#/account' : '#/signin');
  badge.hidden = true;
  if (!session.signedIn) { applyTheme('day'); return; }
  try {
    const [me, settings] = await Promise.all([api('/me'), api('/me/settings')]);
    applyTheme(settings.theme);
    if (me.waitingForAction > 0) {
      badge.textContent = String(me.waitingForAction);
      badge.setAttribute('aria-label', `${me.waitingForAction} waiting for your action`);
      badge.hidden = false;
    }
  } catch { /* the page says what failed */ }
}
