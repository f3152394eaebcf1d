// What this device keeps of the signed-in patron (books kept offline, the service worker's copies of their answers,
// writes waiting in the outbox) and forgetting all of it: at sign-out, when a session ends, and before another patron
// signs in on the same device (a library's shared computer).
import * as outbox from './outbox.js';

export const BOOKS_KEY = 'bookmobile.offline-books';
export const SHELL_CACHE = 'bookmobile-shell';
/** The patron's own answers (`/me/...`) the service worker keeps for reading offline. */
export const ME_CACHE = 'bookmobile-me';
export const bookCache = (bookId) => `bookmobile-book-${bookId}`;
export const supported = () => 'serviceWorker' in navigator && 'caches' in window;

/** The books kept on this device: id → { title, savedAt }. */
export function offlineBooks() {
  try { return JSON.parse(localStorage.getItem(BOOKS_KEY)) || {}; } catch { return {}; }
}

/** Nothing of the patron stays on the device: kept books, copies of their answers, waiting writes, and any page the
 * app shell's cache holds but the app's own (a mail link's page carries a signed token). */
export async function forgetPatron() {
  const kept = Object.keys(offlineBooks());
  localStorage.removeItem(BOOKS_KEY);
  outbox.clear();
  if (!supported()) return;
  await Promise.all([caches.delete(ME_CACHE), ...kept.map((id) => caches.delete(bookCache(id))), forgetPagesButTheApp()]);
}

async function forgetPagesButTheApp() {
  const shell = await caches.open(SHELL_CACHE);
  for (const request of await shell.keys()) {
    const path = new URL(request.url).pathname;
    if (path !== '/' && !path.startsWith('/web/')) await shell.delete(request);
  }
}
