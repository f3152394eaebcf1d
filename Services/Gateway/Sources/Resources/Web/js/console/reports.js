// Reports: loans and holds per day over a chosen period (a chart drawn as SVG, with the same figures in a table), the
// most borrowed books, and the holds report (books whose holds per copy exceed a ratio, with the expected wait); each
// downloadable as CSV, as is every event of the period (patrons pseudonymised).
import { field, h, heading, show } from '../dom.js';
import { admin, download as downloadFile } from './admin-api.js';

const SVG = 'http://www.w3.org/2000/svg';

function svg(name, attributes = {}, ...children) {
  const element = document.createElementNS(SVG, name);
  for (const [key, value] of Object.entries(attributes)) element.setAttribute(key, String(value));
  element.append(...children);
  return element;
}

/** Loans and holds per day as paired bars; the table beside it carries the same figures for screen readers. */
function chart(days) {
  const width = Math.max(320, days.length * 24 + 48);
  const height = 180;
  const top = Math.max(1, ...days.flatMap((d) => [d.loans, d.holds]));
  const scale = (value) => (value / top) * (height - 40);
  const bars = days.flatMap((day, index) => {
    const x = 40 + index * 24;
    return [
      svg('rect', { x, y: height - 20 - scale(day.loans), width: 10, height: scale(day.loans), class: 'bar-loans' }),
      svg('rect', { x: x + 10, y: height - 20 - scale(day.holds), width: 10, height: scale(day.holds), class: 'bar-holds' }),
    ];
  });
  const labels = days.filter((_, index) => index % Math.ceil(days.length / 8) === 0).map((day) => {
    const x = 40 + days.indexOf(day) * 24;
    return svg('text', { x, y: height - 4, class: 'chart-label' }, day.day.slice(5));
  });
  return h('figure', { class: 'chart' },
    svg('svg', { viewBox: `0 0 ${width} ${height}`, role: 'img', 'aria-labelledby': 'chart-caption', preserveAspectRatio: 'xMinYMin meet' },
      svg('line', { x1: 36, y1: height - 20, x2: width, y2: height - 20, class: 'chart-axis' }),
      svg('text', { x: 0, y: 14, class: 'chart-label' }, String(top)),
      ...bars, ...labels),
    h('figcaption', { id: 'chart-caption' }, 'Loans (solid bars) and holds (pale bars) per day; the table below has the figures.'));
}

export async function reportsView(main, { query }) {
  const period = new URLSearchParams();
  for (const key of ['from', 'to']) if (query.get(key)) period.set(key, query.get(key));
  const ratio = query.get('ratio') || '1';
  const [circulation, top, holds] = await Promise.all([
    admin(`/admin/reports/circulation?${period}`),
    admin(`/admin/reports/top-books?${period}&limit=10`),
    admin(`/admin/reports/holds?ratio=${encodeURIComponent(ratio)}`),
  ]);
  const from = h('input', { type: 'date', value: circulation.from, required: true });
  const to = h('input', { type: 'date', value: circulation.to, required: true });
  const ratioInput = h('input', { type: 'number', min: 0, max: 1000, step: 0.1, value: ratio, required: true });
  const message = h('div', { 'aria-live': 'polite' });
  const download = (path, label) => h('button', { type: 'button', class: 'secondary', onclick: async () => {
    try { await downloadFile(path); } catch (error) { show(message, h('p', { class: 'error', role: 'alert' }, error.message)); }
  } }, label);
  const range = `from=${circulation.from}&to=${circulation.to}`;
  const totals = circulation.days.reduce((sum, day) => ({ loans: sum.loans + day.loans, holds: sum.holds + day.holds }), { loans: 0, holds: 0 });
  show(main,
    heading('Reports'),
    h('form', { class: 'inline', onsubmit: (event) => {
      event.preventDefault();
      location.hash = `#/reports?from=${from.value}&to=${to.value}&ratio=${encodeURIComponent(ratioInput.value)}`;
    } }, field('From', from), field('To', to), field('Holds per copy over', ratioInput), h('button', { type: 'submit' }, 'Show')),
    message,
    h('section', { 'aria-labelledby': 'report-circulation' },
      h('h2', { id: 'report-circulation' }, `Loans and holds, ${circulation.from} to ${circulation.to}`),
      h('p', { id: 'report-totals' }, `${totals.loans} loans and ${totals.holds} holds in the period.`),
      chart(circulation.days),
      h('div', { class: 'actions' }, download(`/admin/reports/circulation.csv?${range}`, 'Download loans and holds per day (CSV)'),
        download(`/admin/reports/events.csv?${range}`, 'Download every event (CSV)')),
      h('div', { class: 'table-wrap' }, h('table', { id: 'report-days' },
        h('caption', {}, 'Loans, holds and returns per day'),
        h('thead', {}, h('tr', {}, ['Day', 'Loans', 'Holds', 'Returns'].map((name) => h('th', { scope: 'col' }, name)))),
        h('tbody', {}, circulation.days.slice().reverse().map((day) => h('tr', {},
          h('th', { scope: 'row' }, day.day), h('td', {}, String(day.loans)), h('td', {}, String(day.holds)), h('td', {}, String(day.returns)))))))),
    h('section', { 'aria-labelledby': 'report-top' },
      h('h2', { id: 'report-top' }, 'Most borrowed'),
      h('div', { class: 'actions' }, download(`/admin/reports/top-books.csv?${range}&limit=100`, 'Download most borrowed (CSV)')),
      top.books.length === 0 ? h('p', { class: 'muted' }, 'No loans in the period.') : h('ol', {}, top.books.map((book) =>
        h('li', {}, `${book.title || 'Untitled'}: ${book.loans} ${book.loans === 1 ? 'loan' : 'loans'}`)))),
    h('section', { 'aria-labelledby': 'report-holds' },
      h('h2', { id: 'report-holds' }, `Holds report: more than ${holds.ratio} holds per copy`),
      h('div', { class: 'actions' }, download(`/admin/reports/holds.csv?ratio=${encodeURIComponent(holds.ratio)}`, 'Download the holds report (CSV)')),
      holds.books.length === 0 ? h('p', { class: 'muted' }, 'No book has that many holds per copy.') : h('div', { class: 'table-wrap' }, h('table', { id: 'report-held' },
        h('caption', { class: 'visually-hidden' }, 'Books with the most holds per copy'),
        h('thead', {}, h('tr', {}, ['Book', 'Copies', 'Holds', 'Holds per copy', 'Expected wait'].map((name) => h('th', { scope: 'col' }, name)))),
        h('tbody', {}, holds.books.map((book) => h('tr', {},
          h('th', { scope: 'row' }, book.title || 'Untitled'), h('td', {}, String(book.copies)), h('td', {}, String(book.holds)),
          h('td', {}, String(book.holdsPerCopy)), h('td', {}, `${book.expectedWaitDays} ${book.expectedWaitDays === 1 ? 'day' : 'days'}`))))))));
}
