// What a patron may do with a book in its state: exactly the events the server allows (`allowedEvents`), as buttons.
import { api } from './api.js';
import { announce, formatDate, h } from './dom.js';

const LOAN_STATES = ['not_downloaded', 'download_queued', 'downloading', 'download_failed', 'download_completed', 'opened'];

export const isOnLoan = (status) => LOAN_STATES.includes(status?.state);

/** Patron-facing words for a state, with its dates and figures. */
export function describe(status) {
  switch (status?.state) {
    case 'saved': return 'Saved for later';
    case 'waiting_for_loan': {
      const place = status.holdPosition ? `On hold: number ${status.holdPosition} in the queue` : 'On hold';
      const wait = status.estimatedWait ? `, ${status.estimatedWait}` : '';
      return status.suspendedUntil ? `${place} (suspended until ${formatDate(status.suspendedUntil)})` : place + wait;
    }
    case 'loan_offered': return `Ready for you: accept by ${formatDate(status.offerExpiresAt)}`;
    case 'loan_offer_expired': return 'The offer expired';
    case 'loan_expired': return 'The loan ended';
    case undefined: case null: case 'none': return '';
    default: return status.dueAt ? `On loan until ${formatDate(status.dueAt)}` : 'On loan';
  }
}

/** Buttons in the order a patron reads them; each names the book for assistive technology. */
const EVENTS = [
  ['accept', 'Accept loan', 'POST', 'accept', 'Loan accepted'],
  ['decline', 'Decline offer', 'POST', 'decline', 'Offer declined'],
  ['borrow', 'Borrow', 'POST', 'borrow', 'Borrowed'],
  ['hold', 'Place hold', 'POST', 'hold', 'Hold placed'],
  ['resume', 'Resume hold', 'POST', 'resume', 'Hold resumed'],
  ['cancel_hold', 'Cancel hold', 'DELETE', 'hold', 'Hold cancelled'],
  ['return', 'Return', 'POST', 'return', 'Returned'],
  ['save', 'Save for later', 'PUT', 'saved', 'Saved'],
  ['unsave', 'Remove from saved', 'DELETE', 'saved', 'Removed from saved'],
  ['dismiss', 'Dismiss', 'POST', 'dismiss', 'Dismissed'],
];

/**
 * The action buttons for one book. `available` says whether a copy is free now (borrow is offered only then,
 * a hold only when none is); `changed` runs after any action succeeded.
 */
export function actionButtons(bookId, title, status, { available = true, changed }) {
  const allowed = new Set(status?.allowedEvents || []);
  const buttons = [];
  async function perform(button, method, path, done, body) {
    button.disabled = true;
    try {
      await api(`/me/books/${bookId}/${path}`, { method, body });
      // A returned book's offline copy goes with the loan (offline.js).
      if (path === 'return') document.dispatchEvent(new CustomEvent('loan-ended', { detail: bookId }));
      announce(`${done}: ${title}`);
      await changed?.();
    } catch (error) {
      announce(error.message);
      button.disabled = false;
      button.after(h('span', { class: 'error', role: 'alert' }, ` ${error.message}`));
      // The page's figures may be a few seconds old: when the last copy went meanwhile, offer the hold at once.
      if (path === 'borrow' && error.problem?.type?.endsWith('/no-copies-available') && allowed.has('hold')) {
        const hold = h('button', { type: 'button', 'aria-label': `Place hold: ${title}` }, 'Place hold');
        hold.addEventListener('click', () => perform(hold, 'POST', 'hold', 'Hold placed'));
        button.replaceWith(hold);
        hold.focus();
      }
    }
  }
  if (isOnLoan(status)) buttons.push(h('a', { class: 'button', href: `#/read/${bookId}`, 'aria-label': `Read ${title}` }, 'Read'));
  for (const [event, label, method, path, done] of EVENTS) {
    if (!allowed.has(event)) continue;
    if (event === 'borrow' && !available) continue;
    if (event === 'hold' && available) continue;
    const button = h('button', { type: 'button', class: ['save', 'unsave', 'dismiss', 'decline'].includes(event) ? 'secondary' : '', 'aria-label': `${label}: ${title}` }, label);
    button.addEventListener('click', () => perform(button, method, path, done));
    buttons.push(button);
  }
  if (allowed.has('suspend')) {
    const until = h('input', { type: 'date', min: new Date(Date.now() + 86400000).toISOString().slice(0, 10), 'aria-label': `Suspend the hold on ${title} until` });
    const button = h('button', { type: 'button', class: 'secondary' }, 'Suspend hold');
    button.addEventListener('click', () => {
      if (!until.value) { announce('Choose a date first'); until.focus(); return; }
      perform(button, 'POST', 'suspend', 'Hold suspended', { until: until.value });
    });
    buttons.push(h('span', { class: 'inline' }, until, button));
  }
  return buttons;
}
