// Home: every lane with its first books and a link to the whole lane, then all the catalog's lanes by name.
import { opds } from '../api.js';
import { h, heading, show } from '../dom.js';
import { card, feedRoute } from '../publication.js';

export async function homeView(main) {
  show(main, heading('Bookmobile'), h('p', { class: 'loading' }, 'Loading the lanes…'));
  const [groups, root] = await Promise.all([opds('/opds/groups'), opds('/opds')]);
  const sections = (groups.groups || []).filter((group) => (group.publications || []).length > 0).map((group, index) => {
    const title = group.metadata?.title || 'Books';
    const more = (group.links || []).find((l) => l.rel === 'self' || l.rel === 'collection');
    const id = `lane-${index}`;
    return h('section', { class: 'lane', 'aria-labelledby': id },
      h('div', { class: 'lane-header' },
        h('h2', { id }, title),
        more ? h('a', { href: feedRoute(more.href), 'aria-label': `More: ${title}` }, 'More') : null),
      h('ul', { class: 'cards' }, group.publications.map((publication) => card(publication))));
  });
  const lanes = (root.navigation || []).filter((link) => !link.href.endsWith('/opds/groups'));
  show(main,
    heading('Bookmobile'),
    sections.length ? sections : h('p', { class: 'muted' }, 'The catalog is empty for now.'),
    h('section', { 'aria-labelledby': 'all-lanes' },
      h('h2', { id: 'all-lanes' }, 'All lanes'),
      h('ul', {}, lanes.map((link) => h('li', {}, h('a', { href: feedRoute(link.href) }, link.title))))));
}
