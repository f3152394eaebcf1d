// Reading without the network: the service worker (`/web/js/service-worker.js`) answers from the device's caches when
// the network is away; this module keeps what those caches hold. The app shell is kept at every start; a loan's book
// is kept when the patron asks ("Download for offline") and removed when the loan ends or is returned (checked at
// every start while online); everything of the patron goes at sign-out.
import { api, flushOutbox, local, session } from './api.js';
import { isOnLoan } from './actions.js';
import { BOOKS_KEY, SHELL_CACHE, bookCache, forgetPatron, offlineBooks, supported } from './device.js';

export { forgetPatron, offlineBooks };

function keepList(books) { localStorage.setItem(BOOKS_KEY, JSON.stringify(books)); }

export const isKept = (bookId) => Object.hasOwn(offlineBooks(), bookId);
export const canKeepBooks = supported;

/** Registers the service worker, keeps the app shell, sends queued writes and drops books no longer on loan. */
export async function startOffline() {
  window.addEventListener('online', () => { flushOutbox(); dropEndedLoans(); });
  document.addEventListener('session-ended', () => forgetPatron());
  document.addEventListener('loan-ended', (event) => dropBook(event.detail));
  if (navigator.onLine) { flushOutbox(); dropEndedLoans(); }
  if (!supported()) return;
  try {
    await navigator.serviceWorker.register('/web/js/service-worker.js', { scope: '/' });
    await keepShell();
  } catch { /* reading offline is a bonus: the app works without it */ }
}

/** The page, every module the import map names (views load lazily), the styles and the icon. */
async function keepShell() {
  if (!navigator.onLine) return;
  const map = JSON.parse(document.querySelector('script[type="importmap"]')?.textContent || '{}');
  const urls = new Set(['/', '/web/css/reader-frame.css', ...Object.keys(map.imports || {}), ...Object.values(map.imports || {})]);
  for (const element of document.querySelectorAll('link[href^="/web/"], script[src^="/web/"]')) {
    urls.add(element.getAttribute('href') || element.getAttribute('src'));
  }
  const cache = await caches.open(SHELL_CACHE);
  await Promise.all([...urls].map((url) => cache.add(url).catch(() => null)));
}

/** Keeps a borrowed book on the device: its manifest, contents and every resource, its entry and cover. */
export async function keepBook(bookId, title) {
  const manifest = await api(`/books/${bookId}/manifest.json`);
  const paths = new Set([`/books/${bookId}/manifest.json`, `/books/${bookId}/toc`, `/books/${bookId}/cover`, `/opds/books/${bookId}`]);
  for (const link of [...(manifest.readingOrder || []), ...(manifest.resources || [])]) paths.add(local(link.href));
  const cache = await caches.open(bookCache(bookId));
  for (const path of paths) {
    const accept = path.startsWith('/opds/') ? 'application/opds+json' : '*/*';
    const reply = await api(path, { raw: true, accept }).catch(() => null);
    if (reply?.ok) await cache.put(path, reply);
    else if (!path.endsWith('/cover') && !path.endsWith('/toc')) {
      await caches.delete(bookCache(bookId));
      throw new Error(`Part of the book could not be downloaded (${path}); try again`);
    }
  }
  keepList({ ...offlineBooks(), [bookId]: { title, savedAt: new Date().toISOString() } });
}

/** Removes a book's offline copy. */
export async function dropBook(bookId) {
  const books = offlineBooks();
  delete books[bookId];
  keepList(books);
  if (supported()) await caches.delete(bookCache(bookId));
}

/** Drops the copies of books no longer on loan (returned, or the loan ended), as the server says while online. */
export async function dropEndedLoans() {
  const kept = Object.keys(offlineBooks());
  if (!kept.length || !session.signedIn) return;
  try {
    const { books } = await api('/me/books');
    const onLoan = new Set(books.filter((book) => isOnLoan(book)).map((book) => book.bookId));
    await Promise.all(kept.filter((id) => !onLoan.has(id)).map(dropBook));
  } catch { /* offline or refused: checked at the next start */ }
}

