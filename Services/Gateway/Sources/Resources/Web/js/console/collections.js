// OPDS collections: feeds of open-access books that the catalog imports (register one, run it, follow its progress
// and errors); a run adds the new books and withdraws those gone from the feed.
import { announce, field, formatDate, h, heading, show } from '../dom.js';
import { admin } from './admin-api.js';

const STATUS = { never: 'Never run', waiting: 'Waiting to run', running: 'Running', done: 'Done', failed: 'Failed' };

export async function collectionsView(main) {
  const name = h('input', { type: 'text', required: true, maxlength: 200 });
  const url = h('input', { type: 'url', required: true, placeholder: 'https://example.org/opds' });
  const username = h('input', { type: 'text', autocomplete: 'off' });
  const password = h('input', { type: 'password', autocomplete: 'new-password' });
  const message = h('div', { 'aria-live': 'polite' });
  const table = h('div', { id: 'collections' });
  let timer = null;

  const draw = async () => {
    const { collections } = await admin('/admin/collections');
    table.replaceChildren(collections.length === 0 ? h('p', { class: 'muted' }, 'No collections yet.') : h('div', { class: 'table-wrap' }, h('table', {},
      h('caption', { class: 'visually-hidden' }, 'Collections and their last run'),
      h('thead', {}, h('tr', {}, ['Collection', 'Last run', 'Pages', 'Entries', 'Added', 'Withdrawn', 'Errors', 'Action'].map((title) => h('th', { scope: 'col' }, title)))),
      h('tbody', {}, collections.map((collection) => h('tr', {},
        h('th', { scope: 'row' }, collection.name, h('br'), h('span', { class: 'muted' }, collection.url)),
        h('td', { class: 'collection-status' }, STATUS[collection.status] || collection.status,
          collection.finishedAt ? ` (${formatDate(collection.finishedAt)})` : ''),
        h('td', {}, String(collection.pagesRead)), h('td', {}, String(collection.entriesSeen)),
        h('td', {}, String(collection.booksAdded)), h('td', {}, String(collection.booksWithdrawn)),
        h('td', {}, collection.errors.length ? h('ul', {}, collection.errors.map((error) => h('li', {}, error))) : 'None'),
        h('td', {}, h('button', { type: 'button', 'aria-label': `Run now: ${collection.name}`,
          disabled: ['waiting', 'running'].includes(collection.status), onclick: async () => {
            try {
              await admin(`/admin/collections/${collection.id}/run`, { method: 'POST' });
              announce(`${collection.name}: run asked`);
              await draw();
            } catch (error) { show(message, h('p', { class: 'error', role: 'alert' }, error.message)); }
          } }, 'Run now'))))))));
    // While a run waits or goes on, its figures are read again every two seconds.
    clearTimeout(timer);
    if (collections.some((collection) => ['waiting', 'running'].includes(collection.status)) && main.isConnected) {
      timer = setTimeout(() => draw().catch(() => null), 2000);
    }
  };

  show(main,
    heading('OPDS collections'),
    h('p', {}, 'Feeds of open-access books (OPDS 1.2 or 2.0) imported into the catalog. Each run adds the new books and withdraws the ones no longer in the feed.'),
    table,
    h('form', { class: 'stack', onsubmit: async (event) => {
      event.preventDefault();
      try {
        await admin('/admin/collections', { method: 'POST', body: {
          name: name.value, url: url.value, username: username.value || undefined, password: password.value || undefined,
        } });
        announce('Collection registered');
        for (const input of [name, url, username, password]) input.value = '';
        await draw();
      } catch (error) { show(message, h('p', { class: 'error', role: 'alert' }, error.message)); }
    } }, h('h2', {}, 'Register a feed'), field('Name', name), field('Feed URL', url),
    field('User name (if the feed needs one)', username), field('Password', password), message,
    h('div', { class: 'actions' }, h('button', { type: 'submit' }, 'Register'))));
  await draw();
  return () => clearTimeout(timer);
}
