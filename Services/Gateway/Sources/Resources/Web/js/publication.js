// Reading OPDS 2.0 publications and feeds as the server writes them.
import { h } from './dom.js';
import { local } from './api.js';

export function bookId(publication) {
  const identifier = publication.metadata?.identifier || '';
  return identifier.startsWith('urn:uuid:') ? identifier.slice(9) : identifier;
}

function names(value) {
  if (!value) return [];
  const list = Array.isArray(value) ? value : [value];
  return list.map((item) => (typeof item === 'string' ? item : item.name)).filter(Boolean);
}

export const authors = (publication) => names(publication.metadata?.author);

export function contributors(publication) {
  const roles = { translator: 'Translator', editor: 'Editor', illustrator: 'Illustrator', narrator: 'Narrator', contributor: 'Contributor' };
  return Object.entries(roles).flatMap(([key, label]) => names(publication.metadata?.[key]).map((name) => `${name} (${label})`));
}

export function image(publication, thumbnail = true) {
  const images = publication.images || [];
  const preferred = images.find((i) => i.rel === (thumbnail ? 'http://opds-spec.org/image/thumbnail' : 'cover')) || images[0];
  return preferred ? local(preferred.href) : null;
}

export const link = (document, rel) => (document.links || []).find((l) => l.rel === rel || (Array.isArray(l.rel) && l.rel.includes(rel)));

/** The acquisition link's figures: availability state, copies and holds. */
export function availability(publication) {
  const acquisition = (publication.links || []).find((l) => String(l.rel).startsWith('http://opds-spec.org/acquisition'));
  const properties = acquisition?.properties || {};
  return {
    openAccess: (publication.links || []).some((l) => l.rel === 'http://opds-spec.org/acquisition/open-access'),
    state: properties.availability?.state,
    until: properties.availability?.until,
    copies: properties.copies,
    holds: properties.holds,
  };
}

/** A book card for lanes and result lists: cover, title, author, links to the detail page. */
export function card(publication, stateText) {
  const id = bookId(publication);
  const cover = image(publication);
  const title = publication.metadata?.title || 'Untitled';
  return h('li', { class: 'card' },
    h('a', { href: `#/book/${id}` },
      cover ? h('img', { src: cover, alt: '', loading: 'lazy', width: 144, height: 216 }) : h('span', { class: 'cover-placeholder' }),
      h('span', { class: 'title' }, title),
      h('span', { class: 'author' }, authors(publication).join(', ')),
      stateText ? h('span', { class: 'state' }, stateText) : null));
}

/** Where a feed's link leads in the web app: its lane page. */
export const feedRoute = (href) => `#/feed?href=${encodeURIComponent(local(href))}`;
