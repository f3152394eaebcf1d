// The operator console's entry: asks for the admin token once per tab, then routes between its pages.
import { field, h, heading, show } from '../dom.js';
import { startRouter } from '../router.js';
import { api } from '../api.js';
import { adminToken } from './admin-api.js';
import { dashboardView } from './dashboard.js';
import { uploadView } from './upload.js';
import { booksView } from './books.js';
import { feedbackView } from './feedback.js';
import { mailView } from './mail.js';
import { patronsView, patronView } from './patrons.js';
import { announcementsView } from './announcements.js';
import { reportsView } from './reports.js';
import { marcView } from './marc.js';
import { listsView, listView } from './lists.js';
import { collectionsView } from './collections.js';
import { suggestionsView } from './suggestions.js';

/** Until the tab has the admin token, every page is the token form; once it is right, the page asked for. */
function gated(view) {
  return (page, route) => (adminToken.get() ? view(page, route) : tokenForm(page));
}

function tokenForm(page) {
  const input = h('input', { type: 'password', autocomplete: 'off', required: true, spellcheck: false });
  const message = h('div', { 'aria-live': 'assertive' });
  show(page, heading('Operator sign-in'),
    h('p', {}, 'Enter the admin token. It is kept in this tab only and forgotten when the tab closes.'),
    h('form', { class: 'stack', onsubmit: async (event) => {
      event.preventDefault();
      const token = input.value.trim();
      try {
        // Checked before it is kept: a wrong token never reaches the session storage.
        await api('/admin/figures', { auth: false, headers: { Authorization: `Bearer ${token}` } });
        adminToken.set(token);
        router.render();
      } catch (error) {
        show(message, h('p', { class: 'error', role: 'alert' }, error.status === 401 ? 'That token is not right.' : error.message));
      }
    } }, field('Admin token', input), message, h('div', { class: 'actions' }, h('button', { type: 'submit' }, 'Open the console'))));
  input.focus();
}

const router = startRouter(document.getElementById('main'), [
  [/^\/$/, gated(dashboardView)],
  [/^\/upload$/, gated(uploadView)],
  [/^\/books$/, gated(booksView)],
  [/^\/feedback$/, gated(feedbackView)],
  [/^\/mail$/, gated(mailView)],
  [/^\/patrons$/, gated(patronsView)],
  [/^\/patron\/([\w-]+)$/, gated(patronView)],
  [/^\/announcements$/, gated(announcementsView)],
  [/^\/reports$/, gated(reportsView)],
  [/^\/marc$/, gated(marcView)],
  [/^\/lists$/, gated(listsView)],
  [/^\/collections$/, gated(collectionsView)],
  [/^\/suggestions$/, gated(suggestionsView)],
  [/^\/list\/([\w-]+)$/, gated(listView)],
]);
document.addEventListener('admin-signed-out', () => router.render());
