// Purchase suggestions: what patrons asked the library to buy, how many asked each title; answer (ordered, not
// ordered) and merge the same title asked twice.
import { announce, h, heading, show } from '../dom.js';
import { admin } from './admin-api.js';

const STATUS = { open: 'Asked', ordered: 'Ordered', declined: 'Not ordered', arrived: 'Arrived' };

function row(item, waiting, refresh) {
  const status = h('select', { 'aria-label': `Answer for ${item.title}` },
    ['open', 'ordered', 'declined'].map((value) => h('option', { value, selected: item.status === value }, STATUS[value])));
  const answer = h('input', { type: 'text', maxlength: 500, value: item.answer || '', 'aria-label': `Note to the patrons for ${item.title}` });
  const into = h('select', { 'aria-label': `Merge ${item.title} into` }, h('option', { value: '' }, 'Merge into…'),
    waiting.filter((other) => other.id !== item.id).map((other) => h('option', { value: other.id }, other.title)));
  const message = h('span', { 'aria-live': 'polite' });
  const save = h('button', { type: 'button', 'aria-label': `Save the answer for ${item.title}` }, 'Save');
  save.addEventListener('click', async () => {
    try {
      await admin(`/admin/suggestions/${item.id}`, { method: 'PUT', body: { status: status.value, answer: answer.value } });
      if (into.value) await admin(`/admin/suggestions/${item.id}/merge`, { method: 'POST', body: { into: into.value } });
      announce(`${item.title} saved`);
      await refresh();
    } catch (error) {
      show(message, h('span', { class: 'error', role: 'alert' }, error.message));
    }
  });
  const live = item.status === 'open' || item.status === 'ordered';
  return h('tr', {},
    h('th', { scope: 'row' }, item.bookId ? h('a', { href: `/#/book/${item.bookId}` }, item.title) : item.title,
      item.author ? h('span', { class: 'muted' }, ` by ${item.author}`) : '', item.note ? h('br') : '', item.note ? h('span', { class: 'muted' }, item.note) : ''),
    h('td', {}, String(item.askedBy || 1)),
    h('td', {}, live ? status : STATUS[item.status]),
    h('td', {}, live ? answer : (item.answer || '')),
    h('td', {}, live ? h('div', { class: 'actions' }, into, save) : '', message));
}

export async function suggestionsView(main) {
  const { suggestions } = await admin('/admin/suggestions');
  const waiting = suggestions.filter((item) => item.status === 'open' || item.status === 'ordered');
  const refresh = () => suggestionsView(main);
  show(main, heading('Suggestions'),
    suggestions.length ? h('div', { class: 'table-wrap' }, h('table', {},
      h('caption', { class: 'visually-hidden' }, 'Purchase suggestions, most asked first'),
      h('thead', {}, h('tr', {}, ['Title', 'Patrons', 'Answer', 'Note to patrons', 'Actions'].map((name) => h('th', { scope: 'col' }, name)))),
      h('tbody', {}, suggestions.map((item) => row(item, waiting, refresh))))) : h('p', { class: 'muted' }, 'No patron has suggested a title yet.'));
}
