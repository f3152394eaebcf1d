// Patrons: find one by the start of a card number, username or email; their loans, holds and offers, which staff can
// end for them; block and unblock with a reason; a new PIN or password; what staff did about them.
import { announce, field, formatDate, h, heading, show } from '../dom.js';
import { admin } from './admin-api.js';

const STATES = {
  waiting_for_loan: 'On hold', loan_offered: 'Offered', not_downloaded: 'On loan', download_queued: 'On loan',
  downloading: 'On loan', download_failed: 'On loan', download_completed: 'On loan', opened: 'On loan',
  loan_offer_expired: 'Offer ended', loan_expired: 'Loan ended',
};
const END_ACTIONS = { 'On hold': 'Cancel hold', Offered: 'Decline offer', 'On loan': 'End loan' };

export async function patronsView(main, { query }) {
  const words = query.get('q') || '';
  const after = query.get('after');
  const search = h('input', { type: 'search', value: words, minlength: 2, required: true, autocomplete: 'off' });
  const page = words.length >= 2
    ? await admin(`/admin/patrons?q=${encodeURIComponent(words)}${after ? `&after=${after}` : ''}`) : null;
  show(main,
    heading('Patrons'),
    h('form', { role: 'search', class: 'inline', onsubmit: (event) => { event.preventDefault(); location.hash = `#/patrons?q=${encodeURIComponent(search.value.trim())}`; } },
      field('Find by card number, username or email', search), h('button', { type: 'submit' }, 'Find')),
    page === null ? h('p', { class: 'muted' }, 'Type the start of a card number, a username or an email address.')
      : page.patrons.length === 0 ? h('p', { class: 'muted' }, 'No patron matches.')
        : h('div', { class: 'table-wrap' }, h('table', {},
          h('caption', { class: 'visually-hidden' }, 'Patrons found'),
          h('thead', {}, h('tr', {}, ['Card number', 'Username', 'Email', 'Loans', 'Holds', 'Offers', 'Status'].map((name) => h('th', { scope: 'col' }, name)))),
          h('tbody', {}, page.patrons.map((patron) => h('tr', {},
            h('th', { scope: 'row' }, h('a', { href: `#/patron/${patron.id}` }, patron.cardNumber)),
            h('td', {}, patron.username || ''), h('td', {}, patron.email || ''),
            h('td', {}, String(patron.loans)), h('td', {}, String(patron.holds)), h('td', {}, String(patron.offers)),
            h('td', {}, patron.blockedReason ? `Blocked: ${patron.blockedReason}` : 'Active')))))),
    page?.next ? h('nav', { class: 'pager', 'aria-label': 'Pages' }, h('a', { href: `#/patrons?q=${encodeURIComponent(words)}&after=${page.next}` }, 'Next page')) : null);
}

export async function patronView(main, { params }) {
  const [id] = params;
  const render = async (said) => {
    const { patron, books, audit } = await admin(`/admin/patrons/${id}`);
    const message = h('div', { id: 'patron-message', 'aria-live': 'polite' }, said ? h('p', { class: 'success' }, said) : null);
    const act = (what, done) => async (event) => {
      event?.preventDefault();
      try {
        await what();
        announce(done);
        await render(done);
        main.querySelector('h1')?.focus();
      } catch (error) {
        show(message, h('p', { class: 'error', role: 'alert' }, error.message));
      }
    };
    const reason = h('input', { type: 'text', required: true, maxlength: 500 });
    const secret = h('input', { type: 'text', required: true, autocomplete: 'off', spellcheck: false });
    const kind = h('select', {}, ['adult', 'teen', 'child'].map((type) => h('option', { value: type, selected: type === patron.patronType }, type)));
    const byILS = patron.signIn === 'sip2';
    const title = h('h1', { tabindex: '-1' }, `Patron ${patron.cardNumber}`);
    document.title = `Patron ${patron.cardNumber} · Bookmobile console`;
    show(main,
      title,
      message,
      h('dl', { class: 'facts' },
        h('dt', {}, 'Username'), h('dd', {}, patron.username || '—'),
        h('dt', {}, 'Email'), h('dd', {}, patron.email || '—'),
        h('dt', {}, 'Joined'), h('dd', {}, formatDate(patron.createdAt)),
        h('dt', {}, 'Last sign-in'), h('dd', {}, patron.lastLoginAt ? formatDate(patron.lastLoginAt) : 'never'),
        h('dt', {}, 'Signs in with'), h('dd', {}, byILS ? "the library's card system (SIP2)" : 'a PIN or password kept here'),
        h('dt', {}, 'Type'), h('dd', { id: 'patron-type' }, `${patron.patronType}: at most ${patron.loanLimit} loans and ${patron.holdLimit} holds`),
        h('dt', {}, 'Loans, holds, offers'), h('dd', {}, `${patron.loans}, ${patron.holds}, ${patron.offers}`),
        h('dt', {}, 'Status'), h('dd', { id: 'patron-status' }, patron.blockedReason ? `Blocked since ${formatDate(patron.blockedAt)}: ${patron.blockedReason}` : 'Active'),
        patron.ilsBlock ? [h('dt', {}, "Card system's block"), h('dd', {}, `${patron.ilsBlock} (lifted in the card system, then at the next sign-in)`)] : []),
      h('section', { 'aria-labelledby': 'patron-books' },
        h('h2', { id: 'patron-books' }, 'Loans, holds and offers'),
        books.length === 0 ? h('p', { class: 'muted' }, 'None.') : h('div', { class: 'table-wrap' }, h('table', {},
          h('thead', {}, h('tr', {}, ['Book', 'State', 'Until', 'Action'].map((name) => h('th', { scope: 'col' }, name)))),
          h('tbody', {}, books.map((book) => {
            const state = STATES[book.state] || book.state.replaceAll('_', ' ');
            const action = END_ACTIONS[state];
            const label = `${action}: ${book.title || 'Untitled'}`;
            return h('tr', {},
              h('th', { scope: 'row' }, book.title || 'Untitled'),
              h('td', {}, book.suspendedUntil ? `${state} (suspended)` : state),
              h('td', {}, formatDate(book.dueAt || book.offerExpiresAt)),
              h('td', {}, action ? h('button', { type: 'button', class: 'secondary', onclick: act(
                () => admin(`/admin/patrons/${id}/books/${book.bookId}/end`, { method: 'POST' }), `${label}: done`) }, label) : ''));
          }))))),
      h('section', { 'aria-labelledby': 'patron-block' },
        h('h2', { id: 'patron-block' }, patron.blockedReason ? 'Blocked' : 'Block'),
        patron.blockedReason
          ? h('div', { class: 'actions' }, h('button', { type: 'button', onclick: act(() => admin(`/admin/patrons/${id}/block`, { method: 'DELETE' }), 'Unblocked') }, 'Unblock'))
          : h('form', { class: 'stack', onsubmit: act(() => admin(`/admin/patrons/${id}/block`, { method: 'POST', body: { reason: reason.value } }), 'Blocked') },
            h('p', { class: 'muted' }, 'A blocked patron keeps their loans but cannot borrow or place holds. They are shown the reason.'),
            field('Reason', reason), h('div', { class: 'actions' }, h('button', { type: 'submit', class: 'danger' }, 'Block')))),
      h('section', { 'aria-labelledby': 'patron-kind' },
        h('h2', { id: 'patron-kind' }, 'Patron type'),
        h('form', { class: 'stack', onsubmit: act(() => admin(`/admin/patrons/${id}/type`, { method: 'PUT', body: { type: kind.value } }), 'Patron type set') },
          h('p', { class: 'muted' }, byILS ? "The card system's type replaces this one at the next sign-in when it names one." : "A type brings its loan and hold limits."),
          field('Type', kind), h('div', { class: 'actions' }, h('button', { type: 'submit' }, 'Set type')))),
      byILS ? h('section', { 'aria-labelledby': 'patron-secret' },
        h('h2', { id: 'patron-secret' }, 'PIN'),
        h('p', { class: 'muted' }, "This patron's PIN is kept by the library's card system: change it there.")) : h('section', { 'aria-labelledby': 'patron-secret' },
        h('h2', { id: 'patron-secret' }, 'New PIN or password'),
        h('form', { class: 'stack', onsubmit: act(() => {
          const value = secret.value.trim();
          return admin(`/admin/patrons/${id}/secret`, { method: 'POST', body: /^\d{1,8}$/.test(value) ? { pin: value } : { password: value } });
        }, 'New PIN or password set; the patron is signed out everywhere') },
        field('New PIN (4 to 8 digits) or password', secret),
        h('div', { class: 'actions' }, h('button', { type: 'submit' }, 'Set it')))),
      h('section', { 'aria-labelledby': 'patron-audit' },
        h('h2', { id: 'patron-audit' }, 'What staff did'),
        audit.length === 0 ? h('p', { class: 'muted' }, 'Nothing yet.') : h('div', { class: 'table-wrap' }, h('table', {},
          h('thead', {}, h('tr', {}, ['When', 'Who', 'What', 'Detail'].map((name) => h('th', { scope: 'col' }, name)))),
          h('tbody', {}, audit.map((entry) => h('tr', {},
            h('td', {}, formatDate(entry.at)), h('td', {}, entry.staff), h('td', {}, entry.action.replaceAll('-', ' ')), h('td', {}, entry.detail))))))));
  };
  await render();
}
