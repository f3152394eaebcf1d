// Search as you type: results follow the words after a short pause; the address keeps the query.
import { opds } from '../api.js';
import { field, h, heading, show } from '../dom.js';
import { card } from '../publication.js';

export async function searchView(main, { query }) {
  const input = h('input', { type: 'search', name: 'q', value: query.get('q') || '', autocomplete: 'off', spellcheck: false });
  const results = h('div', { 'aria-live': 'polite', 'aria-busy': 'false' });
  let timer = null;
  let latest = 0;

  async function run(words) {
    const ticket = ++latest;
    if (!words.trim()) { show(results, h('p', { class: 'muted' }, 'Type a title, an author or a subject.')); return; }
    results.setAttribute('aria-busy', 'true');
    try {
      const feed = await opds(`/opds/search?q=${encodeURIComponent(words)}&size=48`);
      if (ticket !== latest) return;
      const publications = feed.publications || [];
      show(results,
        h('p', { id: 'result-count' }, publications.length ? `${publications.length}${feed.links?.some((l) => l.rel === 'next') ? '+' : ''} books found` : 'No books found.'),
        publications.length ? h('ul', { class: 'cards', 'aria-label': 'Search results' }, publications.map((p) => card(p))) : null);
    } catch (error) {
      if (ticket === latest) show(results, h('p', { class: 'error', role: 'alert' }, error.message));
    } finally {
      if (ticket === latest) results.setAttribute('aria-busy', 'false');
    }
  }

  input.addEventListener('input', () => {
    clearTimeout(timer);
    timer = setTimeout(() => {
      history.replaceState(null, '', `#/search?q=${encodeURIComponent(input.value)}`);
      run(input.value);
    }, 250);
  });
  const form = h('form', { role: 'search', onsubmit: (event) => { event.preventDefault(); clearTimeout(timer); run(input.value); } },
    field('Search the catalog', input), h('button', { type: 'submit' }, 'Search'));
  show(main, heading('Search'), form, results);
  input.focus();
  run(input.value);
}
