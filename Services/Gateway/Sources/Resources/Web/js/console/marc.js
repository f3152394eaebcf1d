// MARC records for the library's catalogue (ILS): the whole collection, or what changed since a date (new, changed,
// and withdrawn books as deleted records), as MARCXML or as ISO 2709 (.mrc); downloaded at once, or built as a file
// in the background (its progress shown) and kept here for later downloads.
import { announce, field, formatDate, h, heading, show } from '../dom.js';
import { admin, download } from './admin-api.js';

const STATUS = { waiting: 'Waiting', running: 'Being built', done: 'Ready', failed: 'Failed' };

export async function marcView(main) {
  const since = h('input', { type: 'date' });
  const format = h('select', {}, h('option', { value: 'marcxml' }, 'MARCXML'), h('option', { value: 'iso2709' }, 'ISO 2709 (.mrc)'));
  const message = h('div', { 'aria-live': 'polite' });
  const files = h('div', { id: 'marc-files' });
  let timer = null;
  const fail = (error) => show(message, h('p', { class: 'error', role: 'alert' }, error.message));
  const query = () => `format=${format.value}${since.value ? `&since=${since.value}` : ''}`;

  const drawFiles = async () => {
    const { exports } = await admin('/admin/marc/exports');
    files.replaceChildren(exports.length === 0 ? h('p', { class: 'muted' }, 'No files yet.') : h('div', { class: 'table-wrap' }, h('table', {},
      h('caption', { class: 'visually-hidden' }, 'MARC files, newest first'),
      h('thead', {}, h('tr', {}, ['Asked', 'Records', 'Format', 'Status', 'Download'].map((title) => h('th', { scope: 'col' }, title)))),
      h('tbody', {}, exports.map((item) => h('tr', {},
        h('td', {}, `${formatDate(item.createdAt)} by ${item.createdBy}`),
        h('td', {}, item.since ? `Changes since ${item.since.slice(0, 10)}` : 'The collection'),
        h('td', {}, item.format === 'marcxml' ? 'MARCXML' : 'ISO 2709'),
        h('td', { class: 'marc-status' }, item.status === 'running' || item.status === 'waiting'
          ? h('span', {}, `${STATUS[item.status]}: `, h('progress', { max: Math.max(item.total, 1), value: item.records, 'aria-label': `Records written of ${item.total}` }), ` ${item.records} of ${item.total}`)
          : item.status === 'failed' ? `Failed: ${item.error || ''}` : `${STATUS.done}: ${item.records} records`),
        h('td', {}, item.fileUrl ? h('button', { type: 'button', class: 'secondary', onclick: () => download(item.fileUrl).catch(fail) }, 'Download') : '')))))));
    clearTimeout(timer);
    if (exports.some((item) => ['waiting', 'running'].includes(item.status)) && main.isConnected) {
      timer = setTimeout(() => drawFiles().catch(() => null), 1500);
    }
  };

  show(main,
    heading('MARC records'),
    h('p', {}, 'MARC 21 records of the ebooks, with links to each book in the web app and to its OPDS entry, for the library catalogue.'),
    field('Format', format),
    field('Only the changes since (leave empty for the whole collection)', since),
    h('div', { class: 'actions' },
      h('button', { type: 'button', onclick: async () => {
        show(message, h('p', {}, 'Preparing the file…'));
        try {
          await download(`/admin/marc?${query()}`);
          show(message, h('p', { class: 'success' }, 'Downloaded.'));
        } catch (error) { fail(error); }
      } }, 'Download now'),
      h('button', { type: 'button', class: 'secondary', onclick: async () => {
        try {
          await admin('/admin/marc/exports', { method: 'POST', body: { format: format.value, since: since.value || undefined } });
          announce('The file is being built');
          await drawFiles();
        } catch (error) { fail(error); }
      } }, 'Build a file to keep')),
    message,
    h('section', { 'aria-labelledby': 'marc-kept' }, h('h2', { id: 'marc-kept' }, 'Kept files'), files));
  await drawFiles();
  return () => clearTimeout(timer);
}
