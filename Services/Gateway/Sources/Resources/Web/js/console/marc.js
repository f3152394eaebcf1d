// MARC records for the library's catalogue (ILS): the whole collection, or what changed since a date (new, changed,
// and withdrawn books as deleted records), as MARCXML or as ISO 2709 (.mrc).
import { field, h, heading, show } from '../dom.js';
import { download } from './admin-api.js';

export async function marcView(main) {
  const since = h('input', { type: 'date' });
  const message = h('div', { 'aria-live': 'polite' });
  const get = (format, changes) => async () => {
    if (changes && !since.value) { show(message, h('p', { class: 'error', role: 'alert' }, 'Choose the date the changes start from.')); return; }
    show(message, h('p', {}, 'Preparing the file…'));
    try {
      await download(`/admin/marc?format=${format}${changes ? `&since=${since.value}` : ''}`);
      show(message, h('p', { class: 'success' }, 'Downloaded.'));
    } catch (error) {
      show(message, h('p', { class: 'error', role: 'alert' }, error.message));
    }
  };
  show(main,
    heading('MARC records'),
    h('p', {}, 'MARC 21 records of the ebooks, with links to each book in the web app and to its OPDS entry, for the library catalogue.'),
    h('section', { 'aria-labelledby': 'marc-all' },
      h('h2', { id: 'marc-all' }, 'The whole collection'),
      h('div', { class: 'actions' },
        h('button', { type: 'button', onclick: get('marcxml', false) }, 'Download MARCXML'),
        h('button', { type: 'button', class: 'secondary', onclick: get('iso2709', false) }, 'Download ISO 2709 (.mrc)'))),
    h('section', { 'aria-labelledby': 'marc-changes' },
      h('h2', { id: 'marc-changes' }, 'Changes since a date'),
      field('Changes since', since),
      h('div', { class: 'actions' },
        h('button', { type: 'button', onclick: get('marcxml', true) }, 'Download the changes as MARCXML'),
        h('button', { type: 'button', class: 'secondary', onclick: get('iso2709', true) }, 'Download the changes as ISO 2709'))),
    message);
}
