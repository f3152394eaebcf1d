// Lists and lanes: staff lists made, renamed, filled by searching books, reordered (buttons, so the keyboard does it
// all) and featured; the home page's lanes (featured lists among them) ordered and hidden.
import { announce, field, h, heading, show } from '../dom.js';
import { admin } from './admin-api.js';

/** Moves the item at `index` by `step` in a copy of `items`. */
const moved = (items, index, step) => {
  const copy = items.slice();
  const [item] = copy.splice(index, 1);
  copy.splice(index + step, 0, item);
  return copy;
};

/** After a page is drawn again, the focus goes back to the control named `label` (or the heading). */
function refocus(main, label) {
  const target = label ? [...main.querySelectorAll('button')].find((b) => b.getAttribute('aria-label') === label && !b.disabled) : null;
  (target || main.querySelector('h1'))?.focus();
}

export async function listsView(main) {
  const [{ lists }, { lanes }] = await Promise.all([admin('/admin/lists'), admin('/admin/lanes')]);
  const title = h('input', { type: 'text', required: true, maxlength: 200 });
  const featured = h('input', { type: 'checkbox' });
  const message = h('div', { 'aria-live': 'polite' });
  let order = lanes.map((lane) => ({ ...lane }));

  const laneList = h('ol', { class: 'lane-order' });
  const drawLanes = (focusLabel) => {
    laneList.replaceChildren(...order.map((lane, index) => h('li', {},
      h('span', { class: 'lane-title' }, `${lane.title}${lane.kind === 'list' ? ' (staff list)' : ''}`),
      h('label', { class: 'inline' }, h('input', { type: 'checkbox', 'aria-label': `Shown: ${lane.title}`, checked: !lane.hidden, onchange: (event) => { lane.hidden = !event.target.checked; } }), ' Shown'),
      h('button', { type: 'button', class: 'secondary', 'aria-label': `Move up: ${lane.title}`, disabled: index === 0,
        onclick: () => { order = moved(order, index, -1); drawLanes(`Move up: ${lane.title}`); } }, '↑'),
      h('button', { type: 'button', class: 'secondary', 'aria-label': `Move down: ${lane.title}`, disabled: index === order.length - 1,
        onclick: () => { order = moved(order, index, 1); drawLanes(`Move down: ${lane.title}`); } }, '↓'))));
    if (focusLabel) refocus(laneList, focusLabel);
  };
  drawLanes();

  show(main,
    heading('Lists and lanes'),
    message,
    h('section', { 'aria-labelledby': 'staff-lists' },
      h('h2', { id: 'staff-lists' }, 'Staff lists'),
      lists.length === 0 ? h('p', { class: 'muted' }, 'No staff lists yet.') : h('div', { class: 'table-wrap' }, h('table', {},
        h('thead', {}, h('tr', {}, ['List', 'Books', 'Public', 'Featured'].map((name) => h('th', { scope: 'col' }, name)))),
        h('tbody', {}, lists.map((list) => h('tr', {},
          h('th', { scope: 'row' }, h('a', { href: `#/list/${list.id}` }, list.title)),
          h('td', {}, String(list.bookCount)), h('td', {}, list.public ? 'Yes' : 'No'), h('td', {}, list.featured ? 'Yes' : 'No')))))),
      h('form', { class: 'stack', onsubmit: async (event) => {
        event.preventDefault();
        try {
          const made = await admin('/admin/lists', { method: 'POST', body: { title: title.value, featured: featured.checked, public: true } });
          announce(`List ${made.title} made`);
          location.hash = `#/list/${made.id}`;
        } catch (error) { show(message, h('p', { class: 'error', role: 'alert' }, error.message)); }
      } }, h('h3', {}, 'New list'), field('Title', title),
      h('label', { class: 'inline' }, featured, ' Featured on the home page'),
      h('div', { class: 'actions' }, h('button', { type: 'submit' }, 'Make the list')))),
    h('section', { 'aria-labelledby': 'home-lanes' },
      h('h2', { id: 'home-lanes' }, 'Lanes on the home page'),
      h('p', { class: 'muted' }, 'In the order they show. Lanes not shown stay reachable by their link.'),
      laneList,
      h('div', { class: 'actions' }, h('button', { type: 'button', onclick: async () => {
        try {
          const saved = await admin('/admin/lanes', { method: 'PUT', body: { lanes: order.map(({ slug, hidden }) => ({ slug, hidden })) } });
          order = saved.lanes.map((lane) => ({ ...lane }));
          drawLanes();
          show(message, h('p', { class: 'success' }, 'Lane order saved.'));
          announce('Lane order saved');
        } catch (error) { show(message, h('p', { class: 'error', role: 'alert' }, error.message)); }
      } }, 'Save lane order'))));
}

export async function listView(main, { params: [id] }) {
  const render = async (focusLabel, said) => {
    const list = await admin(`/admin/lists/${id}`);
    const books = (list.books || []).map((bookId, index) => ({ id: bookId, title: list.titles?.[index] || 'Untitled' }));
    const message = h('div', { 'aria-live': 'polite' }, said ? h('p', { class: 'success' }, said) : null);
    const fail = (error) => show(message, h('p', { class: 'error', role: 'alert' }, error.message));
    const reorder = async (order, label) => {
      try {
        await admin(`/admin/lists/${id}/books`, { method: 'PUT', body: { books: order.map((book) => book.id) } });
        await render(label);
      } catch (error) { fail(error); }
    };
    const title = h('input', { type: 'text', value: list.title, required: true, maxlength: 200 });
    const featured = h('input', { type: 'checkbox', checked: list.featured });
    const isPublic = h('input', { type: 'checkbox', checked: list.public });
    const search = h('input', { type: 'search', autocomplete: 'off' });
    const results = h('ul', { class: 'search-results', 'aria-label': 'Books found' });
    const h1 = h('h1', { tabindex: '-1' }, list.title);
    document.title = `${list.title} · Bookmobile console`;
    show(main,
      h1,
      message,
      h('form', { class: 'stack', onsubmit: async (event) => {
        event.preventDefault();
        try {
          await admin(`/admin/lists/${id}`, { method: 'PATCH', body: { title: title.value, featured: featured.checked, public: isPublic.checked } });
          announce('List saved');
          await render(null, 'List saved.');
        } catch (error) { fail(error); }
      } }, field('Title', title),
      h('label', { class: 'inline' }, featured, ' Featured on the home page'),
      h('label', { class: 'inline' }, isPublic, ' Public'),
      h('div', { class: 'actions' }, h('button', { type: 'submit' }, 'Save list'))),
      h('section', { 'aria-labelledby': 'list-books' },
        h('h2', { id: 'list-books' }, `Books (${books.length})`),
        books.length === 0 ? h('p', { class: 'muted' }, 'No books yet: find some below.') : h('ol', { class: 'lane-order', id: 'list-order' }, books.map((book, index) => h('li', {},
          h('span', { class: 'lane-title' }, book.title),
          h('button', { type: 'button', class: 'secondary', 'aria-label': `Move up: ${book.title}`, disabled: index === 0,
            onclick: () => reorder(moved(books, index, -1), `Move up: ${book.title}`) }, '↑'),
          h('button', { type: 'button', class: 'secondary', 'aria-label': `Move down: ${book.title}`, disabled: index === books.length - 1,
            onclick: () => reorder(moved(books, index, 1), `Move down: ${book.title}`) }, '↓'),
          h('button', { type: 'button', class: 'danger', 'aria-label': `Remove: ${book.title}`, onclick: async () => {
            try {
              await admin(`/admin/lists/${id}/books/${book.id}`, { method: 'DELETE' });
              await render(null, `${book.title} removed.`);
            } catch (error) { fail(error); }
          } }, 'Remove'))))),
      h('section', { 'aria-labelledby': 'list-add' },
        h('h2', { id: 'list-add' }, 'Add books'),
        h('form', { role: 'search', class: 'inline', onsubmit: async (event) => {
          event.preventDefault();
          const found = await admin(`/admin/books?size=10&q=${encodeURIComponent(search.value)}`);
          const candidates = found.books.filter((book) => !book.withdrawn);
          results.replaceChildren(...(candidates.length ? candidates.map((book) => h('li', {}, `${book.title} `,
            h('button', { type: 'button', class: 'secondary', 'aria-label': `Add: ${book.title}`, disabled: books.some((b) => b.id === book.id), onclick: async () => {
              try {
                await admin(`/admin/lists/${id}/books`, { method: 'POST', body: { bookId: book.id } });
                announce(`${book.title} added`);
                await render(null, `${book.title} added.`);
              } catch (error) { fail(error); }
            } }, 'Add'))) : [h('li', { class: 'muted' }, 'No books match.')]));
        } }, field('Find books to add', search), h('button', { type: 'submit' }, 'Find'))),
      results,
      h('div', { class: 'actions' }, h('button', { type: 'button', class: 'danger', onclick: async () => {
        try {
          await admin(`/admin/lists/${id}`, { method: 'DELETE' });
          location.hash = '#/lists';
        } catch (error) { fail(error); }
      } }, 'Delete this list')));
    refocus(main, focusLabel);
  };
  await render();
}
