// A PDF in the reader: its pages drawn by the server (`/publication/pages/N.png?width=W`, fetched with the patron's
// token as the EPUB reader's resources are), a zoom, the outline, and the page saved as the reading position (a
// Readium locator with `page=N`) and restored on any device.
import { api, local, session } from '../api.js';
import { announce, h, show } from '../dom.js';
import { readPosition, sendPosition } from '../position.js';

const ZOOMS = [['Fit', 0], ['75%', 600], ['100%', 900], ['150%', 1350], ['200%', 1800]];

function flatten(entries, depth = 0) {
  return (entries || []).flatMap((entry) => [{ ...entry, depth }, ...flatten(entry.children, depth + 1)]);
}

export async function pdfView(main, { bookId, manifest }) {
  const signedIn = session.signedIn;
  const position = signedIn ? await readPosition(bookId) : null;
  const pages = Number(manifest.metadata?.numberOfPages) || 1;
  const file = manifest.readingOrder?.[0] || { href: `/books/${bookId}/publication/book.pdf`, type: 'application/pdf' };
  const base = local(file.href).split('#')[0].replace(/book\.pdf$/, '');
  const outline = flatten(manifest.toc).map((entry) => ({ ...entry, page: Number(((entry.href || '').match(/page=(\d+)/) || [])[1] || 1) }));
  const title = manifest.metadata?.title || 'PDF';
  let page = 1;
  let zoom = 0;
  let shown = null;
  let saveTimer = null;

  document.title = `${title} · Bookmobile`;
  const image = h('img', { id: 'pdf-page', alt: '' });
  const holder = h('div', { class: 'pdf-page' }, image);
  const number = h('input', { type: 'number', id: 'pdf-page-number', min: 1, max: pages, value: 1 });
  const zoomSelect = h('select', { id: 'pdf-zoom' }, ZOOMS.map(([label, width]) => h('option', { value: String(width) }, label)));
  const where = h('p', { id: 'reader-position', 'aria-live': 'polite' });
  show(main, h('section', { class: 'pdf-reader', 'aria-labelledby': 'pdf-title' },
    h('h1', { id: 'pdf-title' }, title),
    h('div', { class: 'actions', role: 'toolbar', 'aria-label': 'PDF reader' },
      h('button', { type: 'button', class: 'secondary', onclick: () => open(page - 1) }, 'Previous page'),
      h('label', {}, 'Page ', number, ` of ${pages}`),
      h('button', { type: 'button', onclick: () => open(page + 1) }, 'Next page'),
      h('label', {}, 'Zoom ', zoomSelect),
      h('a', { class: 'button secondary', href: `#/book/${bookId}` }, 'Close book')),
    where,
    holder,
    outline.length ? h('nav', { 'aria-label': 'Outline' }, h('h2', {}, 'Outline'), h('ol', {}, outline.map((entry) => h('li', { style: `margin-left: ${entry.depth}em` },
      h('button', { type: 'button', class: 'link', onclick: () => open(entry.page) }, `${entry.title} (page ${entry.page})`))))) : null));

  function width() { return zoom || Math.min(2000, Math.max(200, Math.round(holder.clientWidth * (window.devicePixelRatio || 1)) || 900)); }

  // `remember`: false for the page the view opens at, which is already the patron's place (or the start).
  async function open(target, { remember = true } = {}) {
    page = Math.max(1, Math.min(pages, Number(target) || 1));
    number.value = String(page);
    where.textContent = `Page ${page} of ${pages}`;
    const reply = await api(`${base}pages/${page}.png?width=${width()}`, { raw: true, accept: 'image/png' });
    const url = URL.createObjectURL(await reply.blob());
    if (shown) URL.revokeObjectURL(shown);
    shown = url;
    image.src = url;
    image.alt = `Page ${page} of ${title}`;
    // Fit: the whole page in the window (CSS `.fit`); a zoom: that many pixels wide, scrolled in its frame.
    image.classList.toggle('fit', !zoom);
    image.style.width = zoom ? `${zoom}px` : '';
    announce(`Page ${page}`);
    if (remember) save();
  }

  function save() {
    if (!signedIn) return;
    clearTimeout(saveTimer);
    saveTimer = setTimeout(async () => {
      const locator = {
        href: 'book.pdf', type: 'application/pdf',
        locations: { position: page, progression: pages > 1 ? Number(((page - 1) / (pages - 1)).toFixed(6)) : 0, totalProgression: Number((page / pages).toFixed(6)), fragments: [`page=${page}`] },
      };
      if (await sendPosition(bookId, locator)) main.querySelector('.pdf-reader').dataset.savedPosition = `page=${page}`;
    }, 400);
  }

  number.addEventListener('change', () => open(number.value));
  zoomSelect.addEventListener('change', () => { zoom = Number(zoomSelect.value); open(page); });
  const onKey = (event) => {
    if (event.target instanceof HTMLInputElement || event.target instanceof HTMLSelectElement) return;
    if (event.key === 'ArrowRight' || event.key === 'PageDown') open(page + 1);
    if (event.key === 'ArrowLeft' || event.key === 'PageUp') open(page - 1);
  };
  document.addEventListener('keydown', onKey);
  const start = position?.locator;
  await open(start?.locations?.position || Number(((start?.locations?.fragments || []).join('&').match(/page=(\d+)/) || [])[1]) || 1, { remember: false });
  return () => {
    document.removeEventListener('keydown', onKey);
    if (shown) URL.revokeObjectURL(shown);
  };
}
