// The web app's service worker (registered by offline.js with the scope `/`): while the network answers, every
// request goes to it as before; when it does not, the page, the app's files, the books kept on the device and the
// patron's own answers come from the device's caches. It never answers a write: those wait in the page's outbox.
const SHELL_CACHE = 'bookmobile-shell';
const ME_CACHE = 'bookmobile-me';

self.addEventListener('install', (event) => {
  event.waitUntil(caches.open(SHELL_CACHE).then((cache) => cache.add('/')).catch(() => null));
  self.skipWaiting();
});

self.addEventListener('activate', (event) => event.waitUntil(self.clients.claim()));

// The audio element cannot send the patron's token: the player hands it here (`views/listen.js`) and the tracks'
// requests get it, ranges and all. Kept in memory only; a worker that was stopped asks the page again.
let mediaToken = null;
self.addEventListener('message', (event) => {
  if (event.data?.type !== 'media-token') return;
  mediaToken = event.data.token;
  event.ports[0]?.postMessage('kept');
});

self.addEventListener('fetch', (event) => {
  const request = event.request;
  const url = new URL(request.url);
  if (request.method !== 'GET' || url.origin !== self.location.origin) return;
  if (request.mode === 'navigate') {
    // Only the app's page is kept: another page (a mail link's, with its signed token) is never stored on the device.
    event.respondWith(networkFirst(request, { keepIn: url.pathname === '/' ? SHELL_CACHE : undefined, fallback: '/' }));
  } else if (url.pathname.startsWith('/web/')) {
    // Hashed names never change; plain names (the frame's stylesheet) are asked of the network first.
    event.respondWith(/\.[0-9a-f]{8,}\.\w+$/.test(url.pathname) ? cacheFirst(request) : networkFirst(request, { keepIn: SHELL_CACHE }));
  } else if (url.pathname.startsWith('/me/') && !['/me/export', '/me/events'].includes(url.pathname) && request.headers.has('Authorization')) {
    event.respondWith(networkFirst(request, { keepIn: ME_CACHE }));
  } else if (url.pathname === '/me' && request.headers.has('Authorization')) {
    event.respondWith(networkFirst(request, { keepIn: ME_CACHE }));
  } else if (request.destination === 'audio' && url.pathname.startsWith('/books/') && url.pathname.includes('/publication/')) {
    event.respondWith(withMediaToken(request));
  } else if (url.pathname.startsWith('/books/') || url.pathname.startsWith('/opds/books/')) {
    // A book kept on the device is read from the network while there is one, from its copy when not.
    event.respondWith(networkFirst(request, {}));
  }
});

async function networkFirst(request, { keepIn, fallback }) {
  try {
    const reply = await fetch(request);
    // A 404 is kept too: "no reading position yet" is as much the patron's last known answer as a position.
    if (keepIn && (reply.status === 200 || reply.status === 404)) {
      const copy = reply.clone();
      caches.open(keepIn).then((cache) => cache.put(request, copy)).catch(() => null);
    }
    return reply;
  } catch (error) {
    const kept = await caches.match(request, { ignoreVary: true, ignoreSearch: false })
      ?? (fallback ? await caches.match(fallback, { ignoreVary: true }) : undefined);
    if (kept) return kept;
    throw error;
  }
}

async function cacheFirst(request) {
  const kept = await caches.match(request, { ignoreVary: true });
  if (kept) return kept;
  const reply = await fetch(request);
  if (reply.ok) {
    const copy = reply.clone();
    caches.open(SHELL_CACHE).then((cache) => cache.put(request, copy)).catch(() => null);
  }
  return reply;
}

/** A track's request with the patron's token; from the book's offline copy when the network does not answer. */
async function withMediaToken(request) {
  const headers = new Headers(request.headers);
  if (mediaToken) headers.set('Authorization', `Bearer ${mediaToken}`);
  try {
    return await fetch(new Request(request.url, { headers, mode: 'same-origin', credentials: 'same-origin' }));
  } catch (error) {
    const kept = await caches.match(new URL(request.url).pathname, { ignoreVary: true });
    if (kept) return kept;
    throw error;
  }
}
