// One feed (a lane, an author, a series, a list, a search): its books, its facets as choices, and paging.
import { opds, sameOriginPath } from '../api.js';
import { field, h, heading, show } from '../dom.js';
import { card, feedRoute } from '../publication.js';

/** The facet groups as labelled selects; choosing one opens that facet's feed. */
function facetControls(feed) {
  return (feed.facets || []).map((group) => {
    const select = h('select', {
      onchange: (event) => { location.hash = feedRoute(event.target.value).slice(1); },
    }, group.links.map((link) => h('option', { value: link.href, selected: link.rel === 'self' }, link.title)));
    return field(group.metadata?.title || 'Show', select);
  });
}

export function renderFeed(main, feed, title, extra = []) {
  const publications = feed.publications || [];
  const next = (feed.links || []).find((l) => l.rel === 'next');
  const first = (feed.links || []).find((l) => l.rel === 'first');
  const groups = (feed.groups || []).filter((group) => (group.publications || []).length);
  show(main,
    heading(title),
    ...extra,
    feed.facets?.length ? h('div', { class: 'facets', role: 'group', 'aria-label': 'Sort and filter' }, facetControls(feed)) : null,
    publications.length ? h('ul', { class: 'cards', 'aria-label': title }, publications.map((publication) => card(publication))) : null,
    groups.map((group, index) => h('section', { class: 'lane', 'aria-labelledby': `group-${index}` },
      h('h2', { id: `group-${index}` }, group.metadata?.title || 'Books'),
      h('ul', { class: 'cards' }, group.publications.map((publication) => card(publication))))),
    !publications.length && !groups.length ? h('p', { class: 'muted' }, 'No books here.') : null,
    h('nav', { class: 'pager', 'aria-label': 'Pages' },
      first && next ? h('a', { href: feedRoute(first.href) }, 'First page') : null,
      next ? h('a', { href: feedRoute(next.href), rel: 'next' }, 'Next page') : null));
}

export async function feedView(main, { query }) {
  const requested = query.get('href');
  const href = sameOriginPath(requested);
  if (!href) throw new Error(requested ? 'That feed is on another site, so it was not opened.' : 'No feed was named.');
  const feed = await opds(href);
  renderFeed(main, feed, feed.metadata?.title || 'Books');
}
