// The audiobook player: a book from its Readium audiobook manifest, track after track, with chapters, skipping back
// and forward, speed, a sleep timer, and a listening position saved as it plays (a Readium locator: the track and a
// time, `t=` seconds) and restored on any device. The audio element cannot send the patron's token, so the service
// worker adds it to the tracks' requests (ranges and all); without a service worker a track is fetched whole.
import { api, local, session } from '../api.js';
import { announce, h, show } from '../dom.js';
import { readPosition, sendPosition } from '../position.js';

const SPEEDS = [0.75, 1, 1.25, 1.5, 1.75, 2];
const SLEEP = [['Off', 0], ['15 minutes', 15], ['30 minutes', 30], ['45 minutes', 45], ['60 minutes', 60], ['End of chapter', -1]];

/** A track's path inside the package, from a manifest URL. */
function trackPath(href) {
  const marker = '/publication/';
  const path = local(href).split('#')[0];
  const at = path.indexOf(marker);
  return decodeURIComponent(at >= 0 ? path.slice(at + marker.length) : path.replace(/^\//, ''));
}

/** `1:02:03` or `2:03`, as a player shows a time. */
function clock(seconds) {
  const s = Math.max(0, Math.floor(seconds));
  const [hours, minutes, rest] = [Math.floor(s / 3600), Math.floor((s % 3600) / 60), s % 60];
  const two = (n) => String(n).padStart(2, '0');
  return hours ? `${hours}:${two(minutes)}:${two(rest)}` : `${minutes}:${two(rest)}`;
}

function flatten(entries, depth = 0) {
  return (entries || []).flatMap((entry) => [{ ...entry, depth }, ...flatten(entry.children, depth + 1)]);
}

/** Hands the patron's token to the service worker, which adds it to the tracks' requests; true once it has it. */
async function tokenToWorker() {
  if (!('serviceWorker' in navigator)) return false;
  const registration = await Promise.race([navigator.serviceWorker.ready, new Promise((resolve) => setTimeout(() => resolve(null), 3000))]);
  const worker = navigator.serviceWorker.controller;
  if (!registration || !worker) return false;
  // Answered once the worker holds it: a track asked for before would go without the token.
  return new Promise((resolve) => {
    const channel = new MessageChannel();
    const late = setTimeout(() => resolve(false), 2000);
    channel.port1.onmessage = () => { clearTimeout(late); resolve(true); };
    worker.postMessage({ type: 'media-token', token: session.get()?.access || null }, [channel.port2]);
  });
}

export async function listenView(main, { bookId, manifest }) {
  const signedIn = session.signedIn;
  const position = signedIn ? await readPosition(bookId) : null;
  const tracks = (manifest.readingOrder || []).map((link) => ({ path: trackPath(link.href), url: local(link.href).split('#')[0], type: link.type, duration: Number(link.duration) || 0, title: link.title }));
  if (!tracks.length) throw new Error('This audiobook has no tracks.');
  const starts = tracks.reduce((list, track, index) => [...list, index ? list[index - 1] + tracks[index - 1].duration : 0], []);
  const total = tracks.reduce((sum, track) => sum + track.duration, 0);
  const chapters = flatten(manifest.toc).map((entry) => {
    const [, fragment = ''] = (entry.href || '').split('#');
    const index = Math.max(0, tracks.findIndex((track) => track.path === trackPath(entry.href)));
    const offset = Number((fragment.match(/t=([\d.]+)/) || [])[1] || 0);
    return { title: entry.title, depth: entry.depth, track: index, offset, at: starts[index] + offset };
  }).sort((a, b) => a.at - b.at);
  const title = manifest.metadata?.title || 'Audiobook';
  const streamed = await tokenToWorker();
  let track = 0;
  let sleepTimer = null;
  /** Where the sleep timer's "end of chapter" pauses, in seconds of the book (null: not set). */
  let sleepAt = null;
  let saveTimer = null;
  let blobURL = null;
  let restoring = true;

  document.title = `${title} · Bookmobile`;
  const audio = h('audio', { id: 'player', controls: true, preload: 'metadata' });
  const where = h('p', { id: 'listen-position', 'aria-live': 'off' });
  const chapterName = h('p', { id: 'listen-chapter', 'aria-live': 'polite' });
  const speed = h('select', { id: 'listen-speed' }, SPEEDS.map((value) => h('option', { value: String(value), selected: value === 1 }, `${value}×`)));
  const sleep = h('select', { id: 'listen-sleep' }, SLEEP.map(([label, minutes]) => h('option', { value: String(minutes) }, label)));
  const chapterList = h('ol', { class: 'chapters', 'aria-label': 'Chapters' }, chapters.map((chapter, index) => h('li', { style: `margin-left: ${chapter.depth}em` },
    h('button', { type: 'button', class: 'link', 'data-chapter': String(index), onclick: () => seekTo(chapter.at, true) }, `${chapter.title} (${clock(chapter.at)})`))));
  show(main, h('section', { class: 'player', 'aria-labelledby': 'listen-title', 'data-streamed': String(streamed) },
    h('div', { class: 'player-head' },
      h('img', { class: 'player-cover', src: `/books/${bookId}/cover?size=thumbnail`, alt: '', onerror: (event) => event.target.remove() }),
      h('div', {}, h('h1', { id: 'listen-title' }, title), chapterName)),
    audio,
    h('div', { class: 'actions', role: 'toolbar', 'aria-label': 'Player' },
      h('button', { type: 'button', class: 'secondary', onclick: () => seekTo(now() - 30, false) }, 'Back 30 seconds'),
      h('button', { type: 'button', class: 'secondary', onclick: () => seekTo(now() + 30, false) }, 'Forward 30 seconds'),
      h('label', {}, 'Speed ', speed),
      h('label', {}, 'Sleep timer ', sleep),
      h('a', { class: 'button secondary', href: `#/book/${bookId}` }, 'Close')),
    where,
    h('h2', {}, 'Chapters'),
    chapterList));

  /** Where the listener is in the whole book, in seconds. */
  function now() { return starts[track] + (audio.currentTime || 0); }
  function chapterAt(seconds) { return chapters.filter((chapter) => chapter.at <= seconds + 0.001).pop() || chapters[0]; }

  function describe() {
    const chapter = chapterAt(now());
    where.textContent = `${clock(now())} of ${clock(total)}`;
    const name = chapter ? chapter.title : tracks[track].title || '';
    if (chapterName.textContent !== name) chapterName.textContent = name;
    main.querySelector('[aria-current="true"]')?.removeAttribute('aria-current');
    if (chapter) main.querySelector(`[data-chapter="${chapters.indexOf(chapter)}"]`)?.setAttribute('aria-current', 'true');
  }

  /** Whether the audio element got the track's metadata from `source` (false: it could not load it). */
  function opened(source) {
    return new Promise((resolve) => {
      const done = (ok) => { audio.removeEventListener('loadedmetadata', yes); audio.removeEventListener('error', no); resolve(ok); };
      const yes = () => done(true);
      const no = () => done(false);
      audio.addEventListener('loadedmetadata', yes);
      audio.addEventListener('error', no);
      audio.src = source;
    });
  }

  async function load(index) {
    track = Math.max(0, Math.min(tracks.length - 1, index));
    if (blobURL) { URL.revokeObjectURL(blobURL); blobURL = null; }
    // Streamed through the service worker (which adds the token), else, or if that fails, the track fetched whole.
    if (!(streamed && await tokenToWorker() && await opened(tracks[track].url))) {
      main.querySelector('.player').dataset.streamed = 'false';
      const reply = await api(tracks[track].url, { raw: true, accept: tracks[track].type || 'audio/*' });
      blobURL = URL.createObjectURL(await reply.blob());
      if (!await opened(blobURL)) throw new Error('This track cannot be played here.');
    }
    audio.playbackRate = Number(speed.value);
  }

  /** Moves to `seconds` of the whole book (another track if need be). */
  async function seekTo(seconds, play) {
    const target = Math.max(0, Math.min(total - 0.5, seconds));
    let index = starts.findIndex((start, i) => target >= start && (i === tracks.length - 1 || target < starts[i + 1]));
    if (index < 0) index = 0;
    const playing = play || !audio.paused;
    if (index !== track || !audio.src) await load(index);
    audio.currentTime = target - starts[index];
    if (playing) await audio.play().catch(() => null);
    describe();
    save();
  }

  function locator() {
    const current = tracks[track];
    const time = audio.currentTime || 0;
    return {
      href: current.path, type: current.type, title: chapterAt(now())?.title,
      locations: {
        progression: current.duration ? Number((time / current.duration).toFixed(6)) : 0,
        totalProgression: total ? Number((now() / total).toFixed(6)) : 0,
        fragments: [`t=${Math.floor(time)}`],
      },
    };
  }

  /**
   * Moves within the current track and waits until the element is there: a seek asked before the element can seek
   * (its first bytes still coming) is dropped, so it is asked again, three times at most.
   */
  async function settle(seconds) {
    for (let attempt = 0; attempt < 3 && Math.abs((audio.currentTime || 0) - seconds) > 1; attempt++) {
      const seeked = new Promise((resolve) => audio.addEventListener('seeked', resolve, { once: true }));
      audio.currentTime = seconds;
      await Promise.race([seeked, new Promise((resolve) => setTimeout(resolve, 2000))]);
    }
  }

  function save(delay = 300) {
    // Not before the place kept on the server is restored: the player's first moments at 0:00 would replace it.
    if (!signedIn || restoring) return;
    clearTimeout(saveTimer);
    saveTimer = setTimeout(async () => {
      const place = locator();
      if (await sendPosition(bookId, place)) main.querySelector('.player').dataset.savedPosition = `${place.href}|${place.locations.fragments[0]}`;
    }, delay);
  }

  let lastSaved = 0;
  audio.addEventListener('timeupdate', () => {
    describe();
    if (Date.now() - lastSaved > 10000) { lastSaved = Date.now(); save(0); }
    // Compared with the end fixed when the timer was set: time updates come every quarter second or so, and at
    // speed a chapter's last moment can fall between two of them.
    if (sleepAt !== null && now() >= sleepAt - 0.3) {
      audio.pause();
      sleepAt = null;
      sleep.value = '0';
      announce('Sleep timer: paused at the end of the chapter');
    }
  });
  audio.addEventListener('pause', () => save(0));
  audio.addEventListener('seeked', () => save());
  audio.addEventListener('ended', async () => {
    if (track < tracks.length - 1) { await load(track + 1); await audio.play().catch(() => null); } else save(0);
  });
  speed.addEventListener('change', () => { audio.playbackRate = Number(speed.value); announce(`Speed ${speed.value} times`); });
  sleep.addEventListener('change', () => {
    clearTimeout(sleepTimer);
    const chapter = chapterAt(now());
    sleepAt = sleep.value === '-1' ? (chapters[chapters.indexOf(chapter) + 1]?.at ?? total) : null;
    const minutes = Number(sleep.value);
    if (minutes > 0) sleepTimer = setTimeout(() => { audio.pause(); sleep.value = '0'; announce('Sleep timer: paused'); }, minutes * 60000);
    announce(minutes ? (minutes > 0 ? `Pausing in ${minutes} minutes` : 'Pausing at the end of the chapter') : 'Sleep timer off');
  });

  // Where the listener left off, on this device or another.
  const start = position?.locator;
  const startTrack = start ? tracks.findIndex((candidate) => candidate.path === start.href) : -1;
  const startTime = Number(((start?.locations?.fragments || []).join('&').match(/t=([\d.]+)/) || [])[1] || 0);
  await load(Math.max(0, startTrack));
  if (startTrack >= 0) await settle(Math.min(startTime, Math.max(0, tracks[startTrack].duration - 0.5)));
  restoring = false;
  describe();
  return () => {
    clearTimeout(sleepTimer);
    if (!audio.paused) audio.pause();
    if (blobURL) URL.revokeObjectURL(blobURL);
  };
}
