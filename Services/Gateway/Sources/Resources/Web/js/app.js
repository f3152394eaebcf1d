// The web app's entry: the hash router, the header's signed-in state and the patron's theme.
import { api, session } from './api.js';
import { failure, show } from './dom.js';
import { homeView } from './views/home.js';
import { feedView } from './views/feed.js';
import { searchView } from './views/search.js';
import { bookView } from './views/book.js';
import { shelfView } from './views/shelf.js';
import { readerView } from './views/reader.js';
import { signInView, signUpView } from './views/signin.js';
import { accountView } from './views/account.js';

const routes = [
  [/^\/$/, homeView],
  [/^\/feed$/, feedView],
  [/^\/search$/, searchView],
  [/^\/book\/([\w-]+)$/, bookView],
  [/^\/shelf$/, shelfView],
  [/^\/read\/([\w-]+)$/, readerView],
  [/^\/signin$/, signInView],
  [/^\/signup$/, signUpView],
  [/^\/account$/, accountView],
];

const main = document.getElementById('main');
let leaving = null;
let firstRender = true;

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

function parse() {
  const hash = location.hash.startsWith('#/') ? location.hash.slice(1) : '/';
  const [path, query = ''] = hash.split('?');
  return { path, query: new URLSearchParams(query) };
}

async function render() {
  if (location.hash && !location.hash.startsWith('#/')) return; // the skip link
  const { path, query } = parse();
  if (leaving) { try { await leaving(); } catch { /* best effort */ } leaving = null; }
  document.body.classList.remove('reading');
  for (const a of document.querySelectorAll('.top-bar nav a')) {
    const target = a.getAttribute('href').slice(1);
    const current = target === path || (target === '/account' && ['/signin', '/signup'].includes(path));
    if (current) a.setAttribute('aria-current', 'page'); else a.removeAttribute('aria-current');
  }
  const match = routes.map(([pattern, view]) => [path.match(pattern), view]).find(([m]) => m);
  // Each page renders into a container of its own: a page still loading when the patron moves on writes into a
  // container that is no longer in the document.
  const page = document.createElement('div');
  main.replaceChildren(page);
  try {
    if (!match) throw new Error('There is no page here.');
    const [groups, view] = match;
    const leave = await view(page, { params: groups.slice(1), query });
    if (page.isConnected) leaving = leave; else await leave?.();
  } catch (error) {
    show(page, failure(error));
  }
  if (!page.isConnected) return;
  if (!firstRender) {
    const h1 = page.querySelector('h1');
    if (h1) { h1.setAttribute('tabindex', '-1'); h1.focus({ preventScroll: false }); }
  }
  firstRender = false;
}

window.addEventListener('hashchange', render);
document.addEventListener('session-changed', refreshHeader);
document.addEventListener('session-ended', () => { refreshHeader(); });
refreshHeader();
render();
