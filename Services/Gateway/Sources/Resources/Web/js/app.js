// The web app's entry: the hash router, live messages, announcements and reading offline (the header and theme are
// header.js's).
import { finishSingleSignOn, session } from './api.js';
import { startRouter } from './router.js';
import { homeView } from './views/home.js';
import { feedView } from './views/feed.js';
import { searchView } from './views/search.js';
import { bookView } from './views/book.js';
import { shelfView } from './views/shelf.js';
import { readerView } from './views/reader.js';
import { signInView, signUpView } from './views/signin.js';
import { accountView } from './views/account.js';
import { forgetPatron } from './device.js';
import { startOffline } from './offline.js';
import { startLive } from './live.js';
import { announce } from './dom.js';
import { refreshHeader } from './header.js';

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

/** What a live event says to the patron, for the kinds worth a message (the rest only update the page). */
const LIVE_MESSAGES = {
  loan_offered: (title) => `${title} is ready for you: borrow it from My Books before the offer ends.`,
  offer_expiring: (title) => `Your offer of ${title} ends soon.`,
  loan_due_soon: (title) => `${title} is due back soon.`,
  loan_expired: (title) => `Your loan of ${title} has ended.`,
  offer_expired: (title) => `The offer of ${title} has ended.`,
  hold_resumed: (title) => `Your hold on ${title} is back in the queue.`,
  suggestion_arrived: (title) => `${title}, which you asked for, has arrived.`,
};

/** Shows a live event's message in the banner under the header (and says it to screen readers). */
function showLiveMessage({ kind, data }) {
  const message = LIVE_MESSAGES[kind];
  if (!message) return;
  const text = message(data.title ? `“${data.title}”` : 'A book');
  const notice = document.getElementById('live-notice');
  notice.querySelector('.live-text').textContent = text;
  notice.hidden = false;
  announce(text);
}

/** The library's current announcements (the authentication document's), under the header. */
async function showAnnouncements() {
  const region = document.getElementById('announcements');
  try {
    const reply = await fetch('/auth/document', { headers: { Accept: 'application/json' } });
    const items = reply.ok ? ((await reply.json()).announcements || []) : [];
    region.replaceChildren(...items.map((item) => {
      const p = document.createElement('p');
      p.textContent = item.content;
      return p;
    }));
    region.hidden = items.length === 0;
  } catch { /* offline: nothing to show */ }
}

let headerSoon = null;
document.addEventListener('patron-event', (event) => {
  showLiveMessage(event.detail);
  // A change comes as several events (an offer is also a shelf change): the header asks once.
  clearTimeout(headerSoon);
  headerSoon = setTimeout(refreshHeader, 100);
});
document.getElementById('live-notice-close').addEventListener('click', () => { document.getElementById('live-notice').hidden = true; });

document.addEventListener('session-changed', refreshHeader);
// Signed out (or the account deleted): nothing of the patron stays on the device.
document.addEventListener('session-changed', () => { if (!session.signedIn) forgetPatron(); });
document.addEventListener('session-ended', refreshHeader);
// Back from the library's single sign-on: the session begins (or the sign-in page says why not) before any page.
const singleSignOnError = await finishSingleSignOn().catch(() => 'The sign-in could not be completed.');
if (singleSignOnError) location.hash = '#/signin?error=' + encodeURIComponent(singleSignOnError);
refreshHeader();
// The reader's full-window layout ends with the reader.
startRouter(document.getElementById('main'), routes, { before: () => document.body.classList.remove('reading') });
startOffline();
startLive();
showAnnouncements();
