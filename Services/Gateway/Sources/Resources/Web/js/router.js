// The hash router of the web app and of the console. Each page renders into a container of its own, so a page
// still loading when the person moves on writes into a container that is no longer in the document; after a move
// the new page's h1 takes the focus (the first page leaves the focus where the browser put it).
import { failure, show } from './dom.js';

/**
 * Routes `#/path?query` to the first of `routes` ([pattern, view]) whose pattern matches; a view gets its container
 * and `{params, query}` and may return a function to run when the page is left. Navigation links are marked
 * `aria-current` when their href, or a path in their `data-also`, is the page's. `before` runs before each page.
 */
export function startRouter(main, routes, { before } = {}) {
  let leaving = null;
  let firstRender = true;

  async function render() {
    if (location.hash && !location.hash.startsWith('#/')) return; // the skip link
    const [path, query = ''] = (location.hash.startsWith('#/') ? location.hash.slice(1) : '/').split('?');
    if (leaving) { try { await leaving(); } catch { /* best effort */ } leaving = null; }
    before?.();
    for (const a of document.querySelectorAll('.top-bar nav a')) {
      const current = a.getAttribute('href') === `#${path}` || (a.dataset.also || '').split(' ').includes(path);
      if (current) a.setAttribute('aria-current', 'page'); else a.removeAttribute('aria-current');
    }
    const match = routes.map(([pattern, view]) => [path.match(pattern), view]).find(([m]) => m);
    const page = document.createElement('div');
    main.replaceChildren(page);
    try {
      if (!match) throw new Error('There is no page here.');
      const [groups, view] = match;
      const leave = await view(page, { params: groups.slice(1), query: new URLSearchParams(query) });
      if (page.isConnected) leaving = leave; else await leave?.();
    } catch (error) {
      show(page, failure(error));
    }
    if (!page.isConnected) return;
    if (!firstRender) {
      const h1 = page.querySelector('h1');
      h1?.setAttribute('tabindex', '-1');
      h1?.focus();
    }
    firstRender = false;
  }

  window.addEventListener('hashchange', render);
  render();
  return { render };
}
