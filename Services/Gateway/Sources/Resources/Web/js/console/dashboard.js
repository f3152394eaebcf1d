// The dashboard: books, copies, loans, holds, offers and recent ingests at a glance.
import { h, heading, show } from '../dom.js';
import { admin } from './admin-api.js';

export async function dashboardView(main) {
  const [catalog, circulation, recent] = await Promise.all([
    admin('/admin/figures'), admin('/admin/circulation'), admin('/admin/books?size=10'),
  ]);
  const tiles = [
    ['Books', catalog.books], ['Added today', catalog.addedToday], ['Added this week', catalog.addedThisWeek], ['Open access', catalog.openAccess],
    ['Copies lent', `${catalog.copiesLent} of ${catalog.copies}`], ['Active loans', circulation.loans], ['Loans today', circulation.loansToday],
    ['Holds waiting', circulation.holds], ['Offers open', circulation.offers], ['Patrons', circulation.patrons], ['Withdrawn', catalog.withdrawn],
  ];
  show(main,
    heading('Dashboard'),
    h('ul', { class: 'tiles', 'aria-label': 'Figures' }, tiles.map(([name, value]) => h('li', {}, h('span', { class: 'figure' }, String(value)), name))),
    h('h2', {}, 'Latest ingests'),
    recent.books.length
      ? h('div', { class: 'table-wrap' }, h('table', {},
        h('thead', {}, h('tr', {}, h('th', { scope: 'col' }, 'Title'), h('th', { scope: 'col' }, 'Authors'), h('th', { scope: 'col' }, 'Added'), h('th', { scope: 'col' }, 'Warnings'))),
        h('tbody', {}, recent.books.map((book) => h('tr', {},
          h('td', {}, h('a', { href: `#/books?q=${encodeURIComponent(book.title)}` }, book.title)),
          h('td', {}, (book.authors || []).join(', ')),
          h('td', {}, new Date(book.addedAt).toLocaleString()),
          h('td', {}, String((book.warnings || []).length)))))))
      : h('p', { class: 'muted' }, 'No books yet: upload some.'));
}
