// Live updates: the patron's events (GET /me/events, server-sent events). Read through fetch, which can send the
// Bearer token that EventSource cannot; after a drop the stream resumes with Last-Event-ID, so no event is lost. Each
// event is told to the page as a `patron-event` on the document ({kind, data}); a new stream's `ready` too, since
// something may have changed before it opened.
import { refreshTokens, session } from './api.js';

let running = null;
let lastEventId = null;

/** Follows the signed-in patron's events, and a new patron's after each sign-in. */
export function startLive() {
  document.addEventListener('session-changed', restart);
  document.addEventListener('session-ended', restart);
  restart();
}

function restart() {
  running?.abort();
  running = null;
  lastEventId = null;
  if (session.signedIn) {
    running = new AbortController();
    follow(running.signal);
  }
}

const sleep = (ms, signal) => new Promise((resolve) => {
  const timer = setTimeout(resolve, ms);
  signal.addEventListener('abort', () => { clearTimeout(timer); resolve(); }, { once: true });
});

async function follow(signal) {
  let wait = 1000;
  while (!signal.aborted && session.signedIn) {
    try {
      const headers = { Accept: 'text/event-stream', Authorization: `Bearer ${session.get()?.access}` };
      if (lastEventId !== null) headers['Last-Event-ID'] = lastEventId;
      const reply = await fetch('/me/events', { headers, signal, cache: 'no-store' });
      if (reply.status === 401) {
        if (await refreshTokens()) continue;
        return;
      }
      if (reply.ok) {
        wait = 1000;
        await read(reply.body, signal);
      } else {
        // 429 (too many streams) or 503: as long as the server asks.
        wait = Math.max(wait, 1000 * Number(reply.headers.get('Retry-After') || 0));
      }
    } catch { /* offline, or the stream dropped: try again */ }
    if (signal.aborted) return;
    await sleep(wait, signal);
    wait = Math.min(wait * 2, 30000);
  }
}

/** Reads a text/event-stream body, dispatching each event as it completes. */
async function read(body, signal) {
  const reader = body.pipeThrough(new TextDecoderStream()).getReader();
  signal.addEventListener('abort', () => reader.cancel().catch(() => null), { once: true });
  let buffer = '';
  for (;;) {
    const { value, done } = await reader.read();
    if (done) return;
    buffer += value.replace(/\r\n?/g, '\n');
    let end;
    while ((end = buffer.indexOf('\n\n')) >= 0) {
      const block = buffer.slice(0, end);
      buffer = buffer.slice(end + 2);
      dispatch(block);
    }
  }
}

function dispatch(block) {
  let kind = 'message';
  let data = '';
  let hasData = false;
  for (const line of block.split('\n')) {
    if (!line || line.startsWith(':')) continue;
    const colon = line.indexOf(':');
    const field = colon < 0 ? line : line.slice(0, colon);
    const value = colon < 0 ? '' : line.slice(colon + 1).replace(/^ /, '');
    if (field === 'id') lastEventId = value;
    else if (field === 'event') kind = value;
    else if (field === 'data') { data += (hasData ? '\n' : '') + value; hasData = true; }
  }
  if (!hasData) return;
  let parsed = {};
  try { parsed = JSON.parse(data); } catch { /* not ours */ }
  document.dispatchEvent(new CustomEvent('patron-event', { detail: { kind, data: parsed } }));
}
