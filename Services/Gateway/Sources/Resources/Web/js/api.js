// The public API, as any OPDS app uses it: Bearer tokens from /auth, refreshed once on a 401, problem documents as errors.
import * as outbox from './outbox.js';
import { forgetPatron } from './device.js';

const SESSION_KEY = 'bookmobile.session';

export class ApiError extends Error {
  constructor(status, problem) {
    super(problem.detail || problem.title || `HTTP ${status}`);
    this.status = status;
    this.problem = problem;
  }
}

/** The problem document (RFC 9457) of a failed reply, as an ApiError. */
export async function problemOf(reply, fallbackTitle = reply.statusText) {
  let problem = { title: fallbackTitle };
  try { problem = await reply.json(); } catch { /* not a problem document */ }
  return new ApiError(reply.status, problem);
}

export const session = {
  get() {
    try { return JSON.parse(localStorage.getItem(SESSION_KEY)) || null; } catch { return null; }
  },
  set(tokens) {
    localStorage.setItem(SESSION_KEY, JSON.stringify({ access: tokens.access_token, refresh: tokens.refresh_token }));
  },
  clear() { localStorage.removeItem(SESSION_KEY); },
  get signedIn() { return this.get() !== null; },
};

/** A feed's absolute link as a same-origin path (feeds name the server's public URL). */
export function local(href) {
  if (!href) return href;
  try {
    const url = new URL(href, location.href);
    return url.origin === location.origin || url.hostname === location.hostname || url.hostname === '127.0.0.1' || url.hostname === 'localhost'
      ? url.pathname + url.search + url.hash : href;
  } catch { return href; }
}

/**
 * `href` as a path of this origin, or null: `//host/x`, `/\\host/x` and other origins are not the app's, whatever they
 * start with (browsers read a backslash as a slash).
 */
export function sameOriginPath(href) {
  if (typeof href !== 'string') return null;
  const path = local(href);
  try {
    const url = new URL(path, location.href);
    return url.origin === location.origin && /^\/(?![\/\\])/.test(path) ? url.pathname + url.search + url.hash : null;
  } catch { return null; }
}

async function send(path, options, token) {
  const headers = { Accept: options.accept || 'application/json', ...(options.headers || {}) };
  // The patron's token goes to this origin only, whatever a feed's link says.
  if (token && sameOriginPath(path) === null) throw new Error('A link to another site was not followed.');
  if (token) headers.Authorization = `Bearer ${token}`;
  let body = options.body;
  if (body !== undefined && !(body instanceof Blob) && !(body instanceof ArrayBuffer) && typeof body !== 'string') {
    body = JSON.stringify(body);
    headers['Content-Type'] = 'application/json';
  }
  return fetch(local(path), { method: options.method || 'GET', headers, body, keepalive: options.keepalive });
}

let refreshing = null;
export async function refreshTokens() {
  const current = session.get();
  if (!current?.refresh) return false;
  refreshing ??= (async () => {
    try {
      const reply = await fetch('/auth/refresh', {
        method: 'POST', headers: { 'Content-Type': 'application/json', Accept: 'application/json' },
        body: JSON.stringify({ refresh_token: current.refresh }),
      });
      if (!reply.ok) { session.clear(); return false; }
      session.set(await reply.json());
      return true;
    } catch { return false; } finally { setTimeout(() => { refreshing = null; }, 0); }
  })();
  return refreshing;
}

/**
 * Calls the API; resolves to the parsed JSON (null for 204), the raw Response with `raw: true`; rejects with an
 * ApiError carrying the problem document. A signed-in call that gets 401 refreshes the tokens once and retries.
 */
export async function api(path, options = {}) {
  const auth = options.auth !== false;
  let token = auth ? session.get()?.access : null;
  let reply;
  try {
    reply = await send(path, options, token);
  } catch (error) {
    // No network: a reader's write waits on the device (`outbox.js`) and is answered as the server would.
    const method = options.method || 'GET';
    if (!(error instanceof TypeError) || !token || options.headers?.['Idempotency-Key'] || !outbox.queueable(method, local(path))) throw error;
    const key = outbox.enqueue(method, local(path), options.body);
    return method === 'POST' ? { ...options.body, id: `queued-${key}`, queued: true } : options.body;
  }
  if (reply.status === 401 && token && await refreshTokens()) {
    token = session.get()?.access;
    reply = await send(path, options, token);
  }
  if (reply.status === 401 && token) {
    session.clear();
    document.dispatchEvent(new CustomEvent('session-ended'));
  }
  if (options.raw && reply.ok) return reply;
  if (!reply.ok) throw await problemOf(reply);
  if (reply.status === 204) return null;
  const type = reply.headers.get('Content-Type') || '';
  return type.includes('json') ? reply.json() : reply.text();
}

let flushing = null;
/** Sends the writes queued while the network was away, oldest first; stops at the first that cannot reach the server. */
export function flushOutbox() {
  flushing ??= (async () => {
    try {
      for (const item of outbox.pending()) {
        if (!session.signedIn) return;
        try {
          await api(item.path, { method: item.method, body: item.body, headers: { 'Idempotency-Key': item.key } });
        } catch (error) {
          if (!(error instanceof ApiError)) return;  // still offline: the rest waits
          // Refused (a newer position, a loan that ended): the server's word stands, like any late write's.
        }
        outbox.done(item.key);
      }
    } finally { flushing = null; }
  })();
  return flushing;
}

/** An OPDS 2.0 document (feed or publication). */
export const opds = (path) => api(path, { accept: 'application/opds+json' });

/** Signs in with a library card and PIN, or a username and password (HTTP Basic once, tokens after). */
export async function signIn(user, secret) {
  const reply = await fetch('/auth/token', {
    method: 'POST',
    headers: { Accept: 'application/json', Authorization: 'Basic ' + btoa(unescape(encodeURIComponent(`${user}:${secret}`))) },
  });
  if (!reply.ok) throw await problemOf(reply, 'Sign-in failed');
  await beginSession(await reply.json());
}

/** Another patron signs in on this device: whoever was signed in is forgotten first, so that their waiting writes are
 * never sent with the new patron's token and their kept answers never shown to them. */
async function beginSession(tokens) {
  if (session.get() || outbox.pending().length) {
    session.clear();
    await forgetPatron();
  }
  session.set(tokens);
}

const SSO_STATE_KEY = 'bookmobile.sso-state';
const SSO_PURPOSE_KEY = 'bookmobile.sso-purpose';
/** The sync key the provider's last return made, until the account page takes it (never stored: it is shown once). */
let syncKeyMade = null;

/** Where the library's single sign-on begins, for this page (the auth document's implicit flow), with a state of its
 * own kept for the return. With `purpose: 'sync-key'` and a `device`, the return makes a KOReader sync key for a patron
 * of the identity provider (who has no PIN to confirm one with) instead of a session. */
export function singleSignOnHref(authenticate, { purpose = 'sign-in', device } = {}) {
  const state = crypto.randomUUID();
  sessionStorage.setItem(SSO_STATE_KEY, state);
  sessionStorage.setItem(SSO_PURPOSE_KEY, purpose);
  const url = new URL(authenticate, location.origin);
  url.searchParams.set('redirect_uri', location.origin + '/');
  url.searchParams.set('state', state);
  if (purpose === 'sync-key') {
    url.searchParams.set('purpose', purpose);
    url.searchParams.set('device', device);
  }
  return url.pathname + url.search;
}

/** The sync key the provider's return made (`{id, username, key, device}`, or `{error}`), once; null when none. */
export function takeSyncKeyMade() {
  const made = syncKeyMade;
  syncKeyMade = null;
  return made;
}

/** Back from the identity provider (`#access_token=…`, `#sync_key=…` or `#error=…`): a return whose state is this
 * tab's begins the session, or leaves the key it made for the account page; the address loses the fields either way.
 * Returns an error message for the sign-in page, or null. */
export async function finishSingleSignOn() {
  const fields = new URLSearchParams(location.hash.slice(1));
  if (!fields.has('access_token') && !fields.has('sync_key') && !fields.has('error')) return null;
  const expected = sessionStorage.getItem(SSO_STATE_KEY);
  const forKey = sessionStorage.getItem(SSO_PURPOSE_KEY) === 'sync-key';
  sessionStorage.removeItem(SSO_STATE_KEY);
  sessionStorage.removeItem(SSO_PURPOSE_KEY);
  history.replaceState(null, '', location.pathname + location.search + (forKey ? '#/account' : '#/'));
  if (!expected || fields.get('state') !== expected) return 'That sign-in was not started here: sign in again.';
  if (forKey) {
    syncKeyMade = fields.has('sync_key')
      ? { id: fields.get('sync_key_id'), username: fields.get('sync_key_username'), key: fields.get('sync_key'), device: fields.get('device') }
      : { error: fields.get('error_description') || 'No key was made: the sign-in was cancelled.' };
    return null;
  }
  if (fields.has('error')) return fields.get('error_description') || (fields.get('error') === 'access_denied' ? 'The sign-in was cancelled.' : 'The sign-in service is unavailable; try again soon.');
  await beginSession({ access_token: fields.get('access_token'), refresh_token: fields.get('refresh_token') });
  return null;
}

export async function signUp(fields) {
  const reply = await api('/auth/signup', { method: 'POST', body: fields, auth: false });
  await beginSession(reply.tokens);
  return reply.patron;
}

export async function signOut() {
  const current = session.get();
  await flushOutbox().catch(() => null);
  session.clear();
  await forgetPatron();
  if (current?.refresh) {
    try { await api('/auth/logout', { method: 'POST', body: { refresh_token: current.refresh }, auth: false }); } catch { /* already gone */ }
  }
}
