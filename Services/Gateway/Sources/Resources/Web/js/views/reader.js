// The reader: a book from its Readium manifest, paginated or scrolled, with the patron's settings, a reading position
// saved as they read (and restored on any device), bookmarks, the table of contents and a rating prompt at the end.
import { api, session } from '../api.js';
import { announce, h, show } from '../dom.js';
import { applyTheme } from '../header.js';
import { loadChapter, ResourceCache } from '../reader/chapter.js';
import { readPosition, sendPosition } from '../position.js';

const LAYOUT_KEY = 'bookmobile.reader.layout';
/** A resource's path inside the EPUB, as positions and bookmarks name it, from a manifest URL or such a path. */
function archivePath(href) {
  const marker = '/publication/';
  const at = href.indexOf(marker);
  return decodeURIComponent(at >= 0 ? href.slice(at + marker.length) : href.replace(/^\//, ''));
}

function flattenToc(entries, depth = 0) {
  return (entries || []).flatMap((entry) => [{ ...entry, depth }, ...flattenToc(entry.children, depth + 1)]);
}

export async function readerView(main, { params: [bookId] }) {
  const signedIn = session.signedIn;
  // An audiobook is listened to, a PDF read page by page: each has a view of its own.
  const opened = await api(`/books/${bookId}/manifest.json`, { accept: 'application/webpub+json, application/audiobook+json' });
  const profile = [].concat(opened.metadata?.conformsTo || [], opened.conformsTo || []);
  if (profile.some((p) => p.endsWith('/profiles/audiobook'))) return (await import('./listen.js')).listenView(main, { bookId, manifest: opened });
  if (profile.some((p) => p.endsWith('/profiles/pdf'))) return (await import('./pdf.js')).pdfView(main, { bookId, manifest: opened });
  const [manifest, settings, position, bookmarkList] = await Promise.all([
    opened,
    signedIn ? api('/me/settings') : { fontFamily: 'serif', fontSize: 100, theme: 'day', brightness: 1, syncBookmarks: false },
    signedIn ? readPosition(bookId) : null,
    signedIn ? api(`/me/books/${bookId}/bookmarks`).catch(() => ({ bookmarks: [] })) : { bookmarks: [] },
  ]);
  const order = manifest.readingOrder || [];
  if (!order.length) throw new Error('This book has nothing to read.');
  const toc = flattenToc(manifest.toc);
  const title = manifest.metadata?.title || 'Book';
  let bookmarks = bookmarkList.bookmarks || [];
  let layout = localStorage.getItem(LAYOUT_KEY) || 'paginated';
  let chapter = 0;
  let page = 0;
  let pages = 1;
  let doc = null;
  let saveTimer = null;
  let endPrompted = false;
  const cache = new ResourceCache();

  document.body.classList.add('reading');
  document.title = `${title} · Bookmobile`;
  const frame = h('iframe', { class: 'reader-frame', title: `Text of ${title}`, sandbox: 'allow-same-origin' });
  const where = h('p', { id: 'reader-position', 'aria-live': 'polite' });
  const previous = h('button', { type: 'button', class: 'secondary' }, 'Previous page');
  const next = h('button', { type: 'button' }, 'Next page');
  const panel = h('div', { class: 'reader-panel', hidden: true, role: 'dialog', 'aria-modal': 'false', 'aria-labelledby': 'panel-title' });
  const reader = h('div', { class: 'reader' },
    h('div', { class: 'reader-bar' },
      h('h1', {}, title),
      h('div', { class: 'actions', role: 'toolbar', 'aria-label': 'Reader' },
        h('button', { type: 'button', class: 'secondary', onclick: () => openPanel('contents') }, 'Contents'),
        h('button', { type: 'button', class: 'secondary', onclick: () => openPanel('bookmarks') }, 'Bookmarks'),
        h('button', { type: 'button', class: 'secondary', onclick: addBookmark, disabled: !signedIn }, 'Add bookmark'),
        h('button', { type: 'button', class: 'secondary', onclick: () => openPanel('settings') }, 'Reading settings'),
        h('a', { class: 'button secondary', href: `#/book/${bookId}` }, 'Close book'))),
    frame,
    h('div', { class: 'reader-nav' }, previous, where, next));
  show(main, reader, panel);

  // ---- layout and settings ----
  function applySettings() {
    if (!doc) return;
    const root = doc.documentElement;
    root.classList.remove('theme-day', 'theme-sepia', 'theme-night', 'paginated', 'scrolled');
    root.classList.add(`theme-${settings.theme}`, layout);
    root.style.setProperty('--reader-font-size', `${settings.fontSize}%`);
    root.style.setProperty('--reader-font-family', settings.fontFamily === 'sans-serif' ? 'system-ui, "DejaVu Sans", sans-serif' : 'Georgia, "DejaVu Serif", serif');
    frame.style.filter = settings.brightness < 1 ? `brightness(${settings.brightness})` : '';
    applyTheme(settings.theme);
  }

  function measure() {
    if (!doc) return;
    const scroller = doc.scrollingElement;
    pages = layout === 'paginated' ? Math.max(1, Math.ceil((scroller.scrollWidth - 2) / frame.clientWidth)) : 1;
    page = Math.min(page, pages - 1);
  }

  function progression() {
    if (!doc) return 0;
    const scroller = doc.scrollingElement;
    if (layout === 'paginated') return pages > 1 ? page / pages : 0;
    const range = scroller.scrollHeight - scroller.clientHeight;
    return range > 0 ? scroller.scrollTop / range : 0;
  }

  function goToProgression(value) {
    const scroller = doc.scrollingElement;
    if (layout === 'paginated') {
      page = Math.min(pages - 1, Math.max(0, Math.floor(value * pages + 1e-6)));
      scroller.scrollLeft = page * frame.clientWidth;
    } else {
      scroller.scrollTop = value * (scroller.scrollHeight - scroller.clientHeight);
    }
  }

  function chapterTitle(index = chapter) {
    const path = archivePath(order[index].href);
    const entry = toc.find((item) => archivePath(item.href).split('#')[0] === path);
    return entry?.title || `Chapter ${index + 1}`;
  }

  function describePlace() {
    where.textContent = layout === 'paginated'
      ? `${chapterTitle()}: page ${page + 1} of ${pages} (section ${chapter + 1} of ${order.length})`
      : `${chapterTitle()} (section ${chapter + 1} of ${order.length})`;
    previous.disabled = chapter === 0 && page === 0;
  }

  function locator() {
    const value = progression();
    return {
      href: archivePath(order[chapter].href), type: order[chapter].type || 'application/xhtml+xml',
      locations: { progression: Number(value.toFixed(6)), totalProgression: Number(((chapter + value) / order.length).toFixed(6)) },
    };
  }

  function savePosition() {
    if (!signedIn) return;
    clearTimeout(saveTimer);
    saveTimer = setTimeout(async () => {
      const place = locator();
      // A newer position from another device wins; nothing to do then.
      if (await sendPosition(bookId, place)) reader.dataset.savedPosition = `${place.href}|${place.locations.progression}`;
    }, 400);
  }

  async function openChapter(index, at = 0) {
    chapter = Math.max(0, Math.min(order.length - 1, index));
    doc = await loadChapter(frame, order[chapter].href, order[chapter].type, cache);
    doc.addEventListener('keydown', onKey);
    doc.addEventListener('click', onLinkClick);
    applySettings();
    page = 0;
    measure();
    goToProgression(at === 'end' ? 1 : at);
    describePlace();
  }

  async function turn(step) {
    if (layout === 'paginated' && page + step >= 0 && page + step < pages) {
      page += step;
      doc.scrollingElement.scrollLeft = page * frame.clientWidth;
    } else if (step > 0 && chapter < order.length - 1) {
      await openChapter(chapter + 1, 0);
    } else if (step < 0 && chapter > 0) {
      await openChapter(chapter - 1, 'end');
    } else if (step > 0) {
      promptRating();
      return;
    }
    describePlace();
    savePosition();
  }

  function onKey(event) {
    if (event.target.closest?.('input, select, textarea')) return;
    if (event.key === 'ArrowRight' || event.key === 'PageDown') { event.preventDefault(); turn(1); }
    if (event.key === 'ArrowLeft' || event.key === 'PageUp') { event.preventDefault(); turn(-1); }
  }

  /** Links inside the book open their chapter in the reader. */
  function onLinkClick(event) {
    const anchor = event.target.closest?.('a[href]');
    if (!anchor) return;
    event.preventDefault();
    const target = new URL(anchor.getAttribute('href'), new URL(order[chapter].href, location.href));
    if (target.origin !== location.origin) { window.open(target.href, '_blank', 'noopener'); return; }
    goTo(target.pathname + target.hash);
  }

  async function goTo(href, at = 0) {
    const [path, fragment] = archivePath(href).split('#');
    const index = order.findIndex((item) => archivePath(item.href) === path);
    if (index < 0) return false;
    await openChapter(index, at);
    if (fragment && layout === 'paginated') {
      const target = doc.getElementById(fragment);
      if (target) {
        page = Math.max(0, Math.floor((target.getBoundingClientRect().left + doc.scrollingElement.scrollLeft) / frame.clientWidth));
        doc.scrollingElement.scrollLeft = page * frame.clientWidth;
      }
    } else if (fragment) {
      doc.getElementById(fragment)?.scrollIntoView();
    }
    describePlace();
    savePosition();
    return true;
  }

  // ---- bookmarks ----
  function snippet() {
    const range = doc.caretRangeFromPoint?.(40, 40);
    const text = (range?.startContainer?.textContent || doc.body.textContent || '').slice(range?.startOffset || 0).replace(/\s+/g, ' ').trim();
    return text.slice(0, 120);
  }

  async function addBookmark() {
    try {
      const text = snippet();
      const place = locator();
      const bookmark = await api(`/me/books/${bookId}/bookmarks`, { method: 'POST', body: {
        locator: { ...place, text: { highlight: text } }, chapter: chapterTitle(), snippet: text, device: 'web',
      } });
      bookmarks = [...bookmarks.filter((b) => b.id !== bookmark.id), bookmark];
      announce(`Bookmark added: ${chapterTitle()}`);
      if (!panel.hidden && panel.dataset.kind === 'bookmarks') openPanel('bookmarks');
    } catch (error) {
      announce(`The bookmark was not saved: ${error.message}`);
    }
  }

  // ---- side panel: contents, bookmarks, settings ----
  function closePanel() {
    panel.hidden = true;
    panel.replaceChildren();
  }

  function openPanel(kind) {
    panel.dataset.kind = kind;
    const closeButton = h('button', { type: 'button', class: 'secondary', onclick: closePanel }, 'Close panel');
    let body;
    if (kind === 'contents') {
      body = [h('h2', { id: 'panel-title' }, 'Contents'), h('ul', {}, toc.map((entry) => h('li', {},
        h('a', { href: '#', onclick: (event) => { event.preventDefault(); closePanel(); goTo(entry.href); } }, `${'\u2003'.repeat(entry.depth)}${entry.title}`))))];
    } else if (kind === 'bookmarks') {
      body = [h('h2', { id: 'panel-title' }, 'Bookmarks'),
        bookmarks.length ? h('ul', { class: 'bookmark-list' }, bookmarks.map((bookmark) => h('li', {},
          h('strong', {}, bookmark.chapter || 'Bookmark'), h('br'), h('span', { class: 'muted' }, bookmark.snippet || ''),
          h('div', { class: 'actions' },
            h('button', { type: 'button', 'aria-label': `Go to bookmark: ${bookmark.chapter || ''}`, onclick: () => {
              closePanel();
              goTo(bookmark.locator.href, bookmark.locator.locations?.progression || 0);
            } }, 'Go to'),
            h('button', { type: 'button', class: 'secondary', 'aria-label': `Remove bookmark: ${bookmark.chapter || ''}`, onclick: async () => {
              await api(`/me/bookmarks/${bookmark.id}`, { method: 'DELETE' });
              bookmarks = bookmarks.filter((b) => b.id !== bookmark.id);
              announce('Bookmark removed');
              openPanel('bookmarks');
            } }, 'Remove'))))) : h('p', { class: 'muted' }, 'No bookmarks yet.')];
    } else {
      body = settingsControls();
    }
    show(panel, h('div', { class: 'actions' }, closeButton), ...body);
    panel.hidden = false;
    (panel.querySelector('h2') || closeButton).setAttribute('tabindex', '-1');
    panel.querySelector('h2')?.focus();
  }

  let settingsTimer = null;
  function changeSettings(change) {
    Object.assign(settings, change);
    const at = progression();
    applySettings();
    measure();
    goToProgression(at);
    describePlace();
    if (!signedIn) return;
    clearTimeout(settingsTimer);
    settingsTimer = setTimeout(() => {
      const { fontFamily, fontSize, theme, brightness, syncBookmarks } = settings;
      api('/me/settings', { method: 'PUT', body: { fontFamily, fontSize, theme, brightness, syncBookmarks } })
        .then(() => { reader.dataset.savedSettings = `${fontSize}|${theme}|${fontFamily}`; })
        .catch((error) => announce(`Settings not saved: ${error.message}`));
    }, 300);
  }

  function radioGroup(legend, name, options, current, onChange) {
    return h('fieldset', {}, h('legend', {}, legend), options.map(([value, label]) => {
      const input = h('input', { type: 'radio', name, value, checked: value === current, id: `${name}-${value}`, onchange: () => onChange(value) });
      return h('div', { class: 'inline' }, input, h('label', { for: input.id }, label));
    }));
  }

  function settingsControls() {
    const sizeText = h('span', { id: 'font-size-value' }, `${settings.fontSize}%`);
    const resize = (step) => {
      const value = Math.max(50, Math.min(300, settings.fontSize + step));
      changeSettings({ fontSize: value });
      sizeText.textContent = `${value}%`;
      announce(`Font size ${value}%`);
    };
    const brightness = h('input', { type: 'range', min: 0.3, max: 1, step: 0.05, value: settings.brightness, id: 'reader-brightness',
      oninput: () => changeSettings({ brightness: Number(brightness.value) }) });
    return [h('h2', { id: 'panel-title' }, 'Reading settings'),
      h('fieldset', {}, h('legend', {}, 'Font size'), h('div', { class: 'inline' },
        h('button', { type: 'button', class: 'secondary', onclick: () => resize(-10) }, 'Smaller text'), sizeText,
        h('button', { type: 'button', class: 'secondary', onclick: () => resize(10) }, 'Larger text'))),
      radioGroup('Font', 'font', [['serif', 'Serif'], ['sans-serif', 'Sans-serif']], settings.fontFamily, (value) => changeSettings({ fontFamily: value })),
      radioGroup('Theme', 'theme', [['day', 'Day'], ['sepia', 'Sepia'], ['night', 'Night']], settings.theme, (value) => changeSettings({ theme: value })),
      h('label', { for: 'reader-brightness' }, 'Brightness'), brightness,
      radioGroup('Layout', 'layout', [['paginated', 'Paginated'], ['scrolled', 'Scrolled']], layout, (value) => {
        layout = value;
        localStorage.setItem(LAYOUT_KEY, value);
        changeSettings({});
      })];
  }

  // ---- the end of the book ----
  function promptRating() {
    if (endPrompted || !signedIn) { announce('This is the end of the book'); return; }
    endPrompted = true;
    const previousFocus = document.activeElement;
    const close = () => { backdrop.remove(); previousFocus?.focus(); };
    const stars = [1, 2, 3, 4, 5].map((value) => h('button', { type: 'button', 'aria-label': `${value} star${value > 1 ? 's' : ''}`, onclick: async () => {
      await api(`/me/books/${bookId}/rating`, { method: 'PUT', body: { stars: value } }).catch(() => null);
      announce(`Rated ${value} of 5. Thank you!`);
      close();
    } }, '★'));
    const backdrop = h('div', { class: 'dialog-backdrop', onkeydown: (event) => { if (event.key === 'Escape') close(); } },
      h('div', { class: 'dialog', role: 'dialog', 'aria-modal': 'true', 'aria-labelledby': 'end-title' },
        h('h2', { id: 'end-title' }, `You finished ${title}. How was it?`),
        h('div', { class: 'stars', role: 'group', 'aria-label': 'Rating' }, stars),
        h('div', { class: 'actions' }, h('button', { type: 'button', class: 'secondary', onclick: close }, 'Not now'))));
    document.body.append(backdrop);
    stars[0].focus();
  }

  previous.addEventListener('click', () => turn(-1));
  next.addEventListener('click', () => turn(1));
  document.addEventListener('keydown', onKey);
  const onResize = () => { const at = progression(); measure(); goToProgression(at); describePlace(); };
  window.addEventListener('resize', onResize);

  const start = position?.locator;
  if (!start || !(await goTo(start.href, start.locations?.progression || 0))) await openChapter(0, 0);
  reader.dataset.ready = 'true';

  return async () => {
    document.removeEventListener('keydown', onKey);
    window.removeEventListener('resize', onResize);
    cache.release();
  };
}
