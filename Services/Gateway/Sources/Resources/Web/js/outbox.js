// Writes made while the network is away (a reading position, a bookmark, a rating), kept on the device and sent
// when it returns, in order, each with the Idempotency-Key it was queued with: a write that reached the server before
// the network went is not applied twice, and a position older than the server's loses as any late write does.

const KEY = 'bookmobile.outbox';

/** The writes that may wait for the network: the reader's and the rating's. */
const QUEUEABLE = [
  ['PUT', /^\/me\/books\/[\w-]+\/position$/],
  ['POST', /^\/me\/books\/[\w-]+\/bookmarks$/],
  ['PUT', /^\/me\/books\/[\w-]+\/rating$/],
];

export const queueable = (method, path) => QUEUEABLE.some(([m, pattern]) => m === method && pattern.test(path));

export function pending() {
  try { return JSON.parse(localStorage.getItem(KEY)) || []; } catch { return []; }
}

function keep(items) {
  if (items.length) localStorage.setItem(KEY, JSON.stringify(items)); else localStorage.removeItem(KEY);
}

/** Queues a write; returns its key. */
export function enqueue(method, path, body) {
  const key = crypto.randomUUID();
  keep([...pending(), { method, path, body, key }]);
  return key;
}

/** Removes the write queued under `key`. */
export function done(key) { keep(pending().filter((item) => item.key !== key)); }

/** Forgets every queued write (sign-out: nothing of one patron stays for the next). */
export function clear() { localStorage.removeItem(KEY); }
