// My Books: what waits for the patron's action, loans with due dates, holds with their place, saved books.
import { api, local, session } from '../api.js';
import { h, heading, show } from '../dom.js';
import { actionButtons, describe, isOnLoan } from '../actions.js';
import { refreshHeader } from '../header.js';
import { isKept } from '../offline.js';

const SECTIONS = [
  ['Waiting for your action', (b) => ['loan_offered', 'loan_offer_expired', 'loan_expired'].includes(b.state)],
  ['Loans', (b) => isOnLoan(b)],
  ['Holds', (b) => b.state === 'waiting_for_loan'],
  ['Saved for later', (b) => b.state === 'saved'],
];

/** My Books, kept current while shown: a live event (`live.js`) draws it again, without moving the focus. */
export async function shelfView(main) {
  let soon = null;
  const onEvent = () => {
    clearTimeout(soon);
    soon = setTimeout(() => { if (main.isConnected) redrawKeepingFocus(main).catch(() => null); }, 100);
  };
  await renderShelf(main);
  document.addEventListener('patron-event', onEvent);
  return () => {
    clearTimeout(soon);
    document.removeEventListener('patron-event', onEvent);
  };
}

/**
 * Draws My Books again and gives the focus back to the same control (the same book's link or button, by its label)
 * when it was inside: drawing replaces the nodes, and a keyboard or screen-reader user would otherwise be sent back to
 * the top of the page. A control the change took away (a button whose action changed) gives way to its book's title
 * link, and a book that left the page to the heading.
 */
async function redrawKeepingFocus(main) {
  const focused = main.contains(document.activeElement) && document.activeElement !== main ? document.activeElement : null;
  const book = focused?.closest('[data-book]')?.dataset.book;
  const label = (element) => element.getAttribute('aria-label') || element.textContent;
  const wanted = focused && { tag: focused.tagName, label: label(focused) };
  await renderShelf(main);
  if (!wanted) return;
  const scope = book ? main.querySelector(`[data-book="${CSS.escape(book)}"]`) : main;
  const same = [...(scope?.querySelectorAll(wanted.tag) || [])].find((element) => label(element) === wanted.label);
  const heading = main.querySelector('h1');
  const target = same || (book && scope?.querySelector('h3 a')) || heading;
  if (target === heading) heading?.setAttribute('tabindex', '-1');
  target?.focus({ preventScroll: true });
}

async function renderShelf(main) {
  if (!session.signedIn) {
    show(main, heading('My Books'), h('p', {}, h('a', { href: '#/signin' }, 'Sign in'), ' to see your loans, holds and saved books.'));
    return;
  }
  const { books } = await api('/me/books');
  const refresh = async () => {
    await renderShelf(main);
    refreshHeader();
    const h1 = main.querySelector('h1');
    h1?.setAttribute('tabindex', '-1');
    h1?.focus();
  };
  const waiting = books.filter(SECTIONS[0][1]).length;
  show(main,
    heading('My Books'),
    h('p', { id: 'waiting-count' }, waiting ? `${waiting} ${waiting === 1 ? 'book waits' : 'books wait'} for your action.` : 'Nothing waits for your action.'),
    books.length === 0 ? h('p', { class: 'muted' }, 'No books yet. Borrow, hold or save books from the catalog.') : null,
    SECTIONS.map(([title, keep], index) => {
      const items = books.filter(keep);
      if (!items.length) return null;
      return h('section', { 'aria-labelledby': `shelf-${index}` },
        h('h2', { id: `shelf-${index}` }, `${title} (${items.length})`),
        h('ul', { class: 'shelf-list' }, items.map((book) => h('li', { class: 'shelf-item', 'data-book': book.bookId },
          book.thumbnailUrl ? h('img', { src: local(book.thumbnailUrl), alt: '' }) : h('span'),
          h('div', {},
            h('h3', {}, h('a', { href: `#/book/${book.bookId}` }, book.title || 'Untitled')),
            h('p', { class: 'muted' }, (book.authors || []).join(', ')),
            h('p', { class: 'state-text' }, describe(book)),
            isKept(book.bookId) ? h('p', { class: 'muted offline-copy' }, 'On this device') : null,
            h('div', { class: 'actions' }, actionButtons(book.bookId, book.title || 'this book', book, { available: true, changed: refresh })))))));
    }));
}
