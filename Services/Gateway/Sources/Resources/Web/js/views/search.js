// Search as you type: results follow the words after a short pause; the address keeps the query.
import { api, opds, session } from '../api.js';
import { field, h, heading, show } from '../dom.js';
import { card } from '../publication.js';

/** A search that found nothing: a signed-in patron may ask the library to buy the title. */
function suggest(words) {
  if (!session.signedIn) return h('p', { class: 'muted' }, 'Sign in to ask the library to buy a title.');
  const message = h('div', { 'aria-live': 'polite' });
  const button = h('button', { type: 'button', class: 'secondary' }, `Ask the library to buy “${words.trim()}”`);
  button.addEventListener('click', async () => {
    try {
      await api('/me/suggestions', { method: 'POST', body: { title: words.trim() } });
      button.disabled = true;
      show(message, h('p', { class: 'success' }, 'Thank you: the library has your suggestion. You will hear when the book arrives (Account lists your suggestions).'));
    } catch (error) {
      show(message, h('p', { class: 'error', role: 'alert' }, error.message));
    }
  });
  return h('div', { class: 'stack' }, h('p', { class: 'actions' }, button), message);
}

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
        publications.length ? h('ul', { class: 'cards', 'aria-label': 'Search results' }, publications.map((p) => card(p))) : suggest(words));
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
