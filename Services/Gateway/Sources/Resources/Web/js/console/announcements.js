// Announcements: what patrons see in the web app's header (and apps in the authentication document) from a start to
// an end; withdrawn at any time.
import { announce, field, formatDate, h, heading, show } from '../dom.js';
import { admin } from './admin-api.js';

/** A datetime-local input's value for `date` (the browser's time zone). */
const localValue = (date) => new Date(date.getTime() - date.getTimezoneOffset() * 60000).toISOString().slice(0, 16);

export async function announcementsView(main) {
  const { announcements } = await admin('/admin/announcements');
  const content = h('textarea', { required: true, maxlength: 1000, rows: 3 });
  const start = h('input', { type: 'datetime-local', value: localValue(new Date()), required: true });
  const end = h('input', { type: 'datetime-local', value: localValue(new Date(Date.now() + 7 * 86400000)), required: true });
  const message = h('div', { 'aria-live': 'polite' });
  const refresh = () => announcementsView(main);
  show(main,
    heading('Announcements'),
    h('form', { class: 'stack', onsubmit: async (event) => {
      event.preventDefault();
      try {
        await admin('/admin/announcements', { method: 'POST', body: {
          content: content.value, start: new Date(start.value).toISOString(), end: new Date(end.value).toISOString(),
        } });
        announce('Announcement made');
        await refresh();
      } catch (error) {
        show(message, h('p', { class: 'error', role: 'alert' }, error.message));
      }
    } },
    field('Announcement', content), field('Shown from', start), field('Shown until', end), message,
    h('div', { class: 'actions' }, h('button', { type: 'submit' }, 'Announce'))),
    announcements.length === 0 ? h('p', { class: 'muted' }, 'No announcements.') : h('div', { class: 'table-wrap' }, h('table', {},
      h('caption', {}, 'Announcements, the latest start first'),
      h('thead', {}, h('tr', {}, ['Announcement', 'From', 'Until', 'Shown now', 'By', 'Action'].map((name) => h('th', { scope: 'col' }, name)))),
      h('tbody', {}, announcements.map((item) => h('tr', {},
        h('th', { scope: 'row' }, item.content), h('td', {}, formatDate(item.start)), h('td', {}, formatDate(item.end)),
        h('td', {}, item.current ? 'Yes' : 'No'), h('td', {}, item.createdBy),
        h('td', {}, h('button', { type: 'button', class: 'danger', 'aria-label': `Withdraw: ${item.content}`, onclick: async () => {
          await admin(`/admin/announcements/${item.id}`, { method: 'DELETE' });
          announce('Announcement withdrawn');
          await refresh();
        } }, 'Withdraw'))))))));
}
