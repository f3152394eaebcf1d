// Books: list and search every book (withdrawn ones too); edit copies, featured, staff pick and who a book is for;
// withdraw.
import { announce, field, h, heading, show } from '../dom.js';
import { admin } from './admin-api.js';

function editRow(book, refresh) {
  const copies = h('input', { type: 'number', min: 0, max: 100000, value: book.copies, 'aria-label': `Copies of ${book.title}` });
  const featured = h('input', { type: 'checkbox', checked: book.featured, 'aria-label': `Featured: ${book.title}` });
  const staffPick = h('input', { type: 'checkbox', checked: book.staffPick, 'aria-label': `Staff pick: ${book.title}` });
  // Who the book is for: teens' and children's cards see only the books marked for them.
  const audiences = [['', 'Not stated'], ['children', 'Children'], ['young-adult', 'Young adults'], ['adult', 'Adults'], ['all-ages', 'All ages']];
  const audience = h('select', { 'aria-label': `Audience: ${book.title}` },
    audiences.map(([value, label]) => h('option', { value, selected: (book.audience || '') === value }, label)));
  const message = h('span', { 'aria-live': 'polite' });
  const save = h('button', { type: 'button', 'aria-label': `Save ${book.title}` }, 'Save');
  const withdraw = h('button', { type: 'button', class: 'danger', 'aria-label': `Withdraw ${book.title}` }, 'Withdraw');
  save.addEventListener('click', async () => {
    try {
      const body = { copies: Number(copies.value), featured: featured.checked, staffPick: staffPick.checked };
      if (audience.value) body.audience = audience.value;
      await admin(`/admin/books/${book.id}`, { method: 'PATCH', body });
      show(message, h('span', { class: 'success' }, 'Saved'));
      announce(`${book.title} saved`);
    } catch (error) {
      show(message, h('span', { class: 'error', role: 'alert' }, error.message));
    }
  });
  withdraw.addEventListener('click', async () => {
    try {
      await admin(`/admin/books/${book.id}`, { method: 'DELETE' });
      announce(`${book.title} withdrawn`);
      await refresh();
    } catch (error) {
      show(message, h('span', { class: 'error', role: 'alert' }, error.message));
    }
  });
  return h('tr', {},
    h('th', { scope: 'row' }, h('a', { href: `/#/book/${book.id}` }, book.title), h('br'), h('span', { class: 'muted' }, (book.authors || []).join(', '))),
    h('td', {}, book.withdrawn ? 'Withdrawn' : book.openAccess ? 'Open access' : `${book.copiesAvailable} of ${book.copies} free, ${book.holds} holds`),
    h('td', {}, book.withdrawn ? '' : copies),
    h('td', {}, book.withdrawn ? '' : featured),
    h('td', {}, book.withdrawn ? '' : staffPick),
    h('td', {}, book.withdrawn ? '' : audience),
    h('td', {}, book.withdrawn ? '' : h('div', { class: 'actions' }, save, withdraw), message));
}

export async function booksView(main, { query }) {
  const words = query.get('q') || '';
  const after = query.get('after');
  const page = await admin(`/admin/books?size=25&q=${encodeURIComponent(words)}${after ? `&after=${after}` : ''}`);
  const search = h('input', { type: 'search', value: words });
  const refresh = () => booksView(main, { query });
  show(main,
    heading('Books'),
    h('form', { role: 'search', class: 'inline', onsubmit: (event) => { event.preventDefault(); location.hash = `#/books?q=${encodeURIComponent(search.value)}`; } },
      field('Find by title or author', search), h('button', { type: 'submit' }, 'Find')),
    page.books.length ? h('div', { class: 'table-wrap' }, h('table', {},
      h('caption', { class: 'visually-hidden' }, 'Books, newest first'),
      h('thead', {}, h('tr', {}, ['Book', 'Availability', 'Copies', 'Featured', 'Staff pick', 'Audience', 'Actions'].map((name) => h('th', { scope: 'col' }, name)))),
      h('tbody', {}, page.books.map((book) => editRow(book, refresh))))) : h('p', { class: 'muted' }, 'No books match.'),
    page.next ? h('nav', { class: 'pager', 'aria-label': 'Pages' }, h('a', { href: `#/books?q=${encodeURIComponent(words)}&after=${page.next}` }, 'Next page')) : null);
}
