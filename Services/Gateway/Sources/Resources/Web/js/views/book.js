// A book: cover, metadata, description, contents, availability, the actions its state allows, rating, related books.
import { api, opds, session } from '../api.js';
import { announce, formatLength, h, heading, show } from '../dom.js';
import { actionButtons, describe, isOnLoan } from '../actions.js';
import { authors, availability, card, contributors, feedRoute, image } from '../publication.js';
import { canKeepBooks, dropBook, isKept, keepBook } from '../offline.js';

/** "Download for offline" for a loan, or "Remove offline copy" once it is kept on the device. */
function offlineButton(bookId, title, changed) {
  const kept = isKept(bookId);
  const button = h('button', { type: 'button', class: 'secondary', 'aria-label': `${kept ? 'Remove offline copy' : 'Download for offline'}: ${title}` },
    kept ? 'Remove offline copy' : 'Download for offline');
  button.addEventListener('click', async () => {
    button.disabled = true;
    try {
      if (kept) await dropBook(bookId); else await keepBook(bookId, title);
      announce(kept ? `The offline copy of ${title} was removed` : `${title} can be read offline on this device`);
      await changed();
    } catch (error) {
      button.disabled = false;
      button.after(h('span', { class: 'error', role: 'alert' }, ` ${error.message}`));
    }
  });
  return button;
}

function tocList(entries) {
  return h('ol', {}, entries.map((entry) => h('li', {}, entry.title, entry.children?.length ? tocList(entry.children) : null)));
}

function ratingWidget(bookId, title, stars) {
  const group = h('div', { class: 'stars', role: 'group', 'aria-label': `Your rating of ${title}` });
  for (let value = 1; value <= 5; value++) {
    const button = h('button', { type: 'button', 'aria-pressed': String(value <= (stars || 0)), 'aria-label': `${value} star${value > 1 ? 's' : ''}` }, '★');
    button.addEventListener('click', async () => {
      await api(`/me/books/${bookId}/rating`, { method: 'PUT', body: { stars: value } });
      for (const [index, b] of [...group.children].entries()) b.setAttribute('aria-pressed', String(index < value));
      announce(`Rated ${value} of 5`);
    });
    group.append(button);
  }
  return group;
}

export async function bookView(main, { params: [bookId] }) {
  const signedIn = session.signedIn;
  const [publication, status, toc, rating, related] = await Promise.all([
    opds(`/opds/books/${bookId}`),
    signedIn ? api(`/me/books/${bookId}`).catch(() => null) : null,
    api(`/books/${bookId}/toc`).catch(() => []),
    signedIn ? api(`/me/books/${bookId}/rating`).catch(() => null) : null,
    opds(`/opds/books/${bookId}/related`).catch(() => null),
  ]);
  const meta = publication.metadata || {};
  const title = meta.title || 'Untitled';
  const figures = availability(publication);
  const available = figures.openAccess || figures.state === 'available' || (figures.copies?.available ?? 1) > 0;
  const series = meta.belongsTo?.series ? [].concat(meta.belongsTo.series) : [];
  const description = typeof meta.description === 'string' ? meta.description : '';

  const facts = [
    ['Author', authors(publication).join(', ')],
    ['Contributors', contributors(publication).join('; ')],
    ['Series', series.map((s) => `${s.name}${s.position ? ` (book ${s.position})` : ''}`).join(', ')],
    ['Publisher', [].concat(meta.publisher || []).map((p) => p.name || p).join(', ')],
    ['Published', (meta.published || '').slice(0, 10)],
    ['Language', [].concat(meta.language || []).join(', ')],
    ['Subjects', (meta.subject || []).map((s) => s.name).join(', ')],
    ['Format', meta['@type'] === 'http://schema.org/Audiobook' ? 'Audiobook' : (publication.links || []).some((l) => l.type === 'application/pdf' || l.properties?.indirectAcquisition?.some((i) => i.type === 'application/pdf')) ? 'PDF' : 'Ebook'],
    ['Length', meta.duration ? formatLength(meta.duration) : ''],
    ['Pages', meta.numberOfPages ? String(meta.numberOfPages) : ''],
    ['Reading time', meta['urn:x-bookmobile:readingMinutes'] ? `about ${Math.max(1, Math.round(meta['urn:x-bookmobile:readingMinutes'] / 60))} h` : ''],
    ['Availability', figures.openAccess ? 'Free to read (open access)'
      : `${figures.copies?.available ?? '?'} of ${figures.copies?.total ?? '?'} copies available, ${figures.holds?.total ?? 0} on hold`],
  ].filter(([, value]) => value);

  const refresh = async () => {
    await bookView(main, { params: [bookId] });
    const h1 = main.querySelector('h1');
    h1?.setAttribute('tabindex', '-1');
    h1?.focus();
  };
  const actions = signedIn
    ? actionButtons(bookId, title, status, { available, changed: refresh })
    : [h('a', { class: 'button', href: '#/signin' }, 'Sign in to borrow')];
  if (figures.openAccess && !actions.some((a) => a.textContent === 'Read')) {
    actions.unshift(h('a', { class: 'button', href: `#/read/${bookId}`, 'aria-label': `Read ${title}` }, 'Read'));
  }
  if (meta['@type'] === 'http://schema.org/Audiobook') {
    for (const link of actions.filter((a) => a.getAttribute?.('href') === `#/read/${bookId}`)) {
      link.textContent = 'Listen';
      link.setAttribute('aria-label', `Listen to ${title}`);
    }
  }
  if (signedIn && isOnLoan(status) && canKeepBooks()) actions.push(offlineButton(bookId, title, refresh));
  if (signedIn) {
    const ignore = h('button', { type: 'button', class: 'secondary', 'aria-label': `Hide ${title} from my feeds` }, 'Hide this book');
    ignore.addEventListener('click', async () => {
      await api(`/me/books/${bookId}/ignored`, { method: 'PUT' });
      announce(`${title} is hidden from your feeds; Account lists it to restore`);
      location.hash = '#/';
    });
    actions.push(ignore);
  }

  const relatedGroups = (related?.groups || []).filter((group) => (group.publications || []).length);
  show(main,
    h('article', { class: 'book' },
      h('div', { class: 'cover' }, image(publication, false) ? h('img', { src: image(publication, false), alt: `Cover of ${title}` }) : null),
      h('div', {},
        heading(title),
        h('dl', {}, facts.flatMap(([name, value]) => [h('dt', {}, name), h('dd', {}, value)])),
        status && describe(status) ? h('p', { class: 'success', id: 'book-state' }, describe(status)) : null,
        isKept(bookId) ? h('p', { class: 'muted', id: 'offline-state' }, 'Downloaded: readable on this device without the network') : null,
        h('div', { class: 'actions', role: 'group', 'aria-label': 'Actions' }, actions),
        signedIn ? h('section', { 'aria-labelledby': 'rate' }, h('h2', { id: 'rate' }, 'Your rating'), ratingWidget(bookId, title, rating?.stars)) : null,
        description ? h('section', { 'aria-labelledby': 'about' }, h('h2', { id: 'about' }, 'About this book'), h('p', {}, description)) : null,
        toc.length ? h('section', { class: 'toc', 'aria-labelledby': 'contents' }, h('h2', { id: 'contents' }, 'Contents'), tocList(toc)) : null,
        series.map((s) => s.links?.[0] ? h('p', {}, h('a', { href: feedRoute(s.links[0].href) }, `More in the series ${s.name}`)) : null))),
    relatedGroups.map((group, index) => h('section', { class: 'lane', 'aria-labelledby': `related-${index}` },
      h('h2', { id: `related-${index}` }, group.metadata?.title || 'Related'),
      h('ul', { class: 'cards' }, group.publications.map((p) => card(p))))));
}
