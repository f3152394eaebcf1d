// The operator console's entry: asks for the admin token once per tab, then routes between its pages.
import { field, h, heading, show } from '../dom.js';
import { adminToken, admin } from './admin-api.js';
import { dashboardView } from './dashboard.js';
import { uploadView } from './upload.js';
import { booksView } from './books.js';
import { feedbackView } from './feedback.js';

const routes = { '/': dashboardView, '/upload': uploadView, '/books': booksView, '/feedback': feedbackView };
const main = document.getElementById('main');
let firstRender = true;

function tokenForm() {
  const input = h('input', { type: 'password', autocomplete: 'off', required: true, spellcheck: false });
  const message = h('div', { 'aria-live': 'assertive' });
  show(main, heading('Operator sign-in'),
    h('p', {}, 'Enter the admin token. It is kept in this tab only and forgotten when the tab closes.'),
    h('form', { class: 'stack', onsubmit: async (event) => {
      event.preventDefault();
      adminToken.set(input.value.trim());
      try {
        await admin('/admin/figures');
        render();
      } catch (error) {
        adminToken.clear();
        show(message, h('p', { class: 'error', role: 'alert' }, error.status === 401 ? 'That token is not right.' : error.message));
      }
    } }, field('Admin token', input), message, h('div', { class: 'actions' }, h('button', { type: 'submit' }, 'Open the console'))));
  input.focus();
}

async function render() {
  if (location.hash && !location.hash.startsWith('#/')) return;
  if (!adminToken.get()) { tokenForm(); return; }
  const [path, query = ''] = (location.hash.slice(1) || '/').split('?');
  for (const a of document.querySelectorAll('.top-bar nav a')) {
    if (a.getAttribute('href') === `#${path}`) a.setAttribute('aria-current', 'page'); else a.removeAttribute('aria-current');
  }
  const view = routes[path];
  // A page still loading when the operator moves on writes into a container that is no longer in the document.
  const page = document.createElement('div');
  main.replaceChildren(page);
  try {
    if (!view) throw new Error('There is no page here.');
    await view(page, new URLSearchParams(query));
  } catch (error) {
    show(page, h('p', { class: 'error', role: 'alert' }, error.message));
  }
  if (!page.isConnected) return;
  if (!firstRender) page.querySelector('h1')?.setAttribute('tabindex', '-1');
  if (!firstRender) page.querySelector('h1')?.focus();
  firstRender = false;
}

window.addEventListener('hashchange', render);
document.addEventListener('admin-signed-out', render);
render();
