// Upload: drop several books (EPUBs, PDFs, audiobooks: M4B, a ZIP of MP3s, a Readium package; or choose them); each goes up on its own with its progress and the ingest's warnings.
import { announce, field, h, heading, show } from '../dom.js';
import { uploadBook } from './admin-api.js';

export async function uploadView(main) {
  const copies = h('input', { type: 'number', min: 0, max: 100000, value: 1 });
  const openAccess = h('input', { type: 'checkbox', id: 'upload-open-access' });
  const featured = h('input', { type: 'checkbox', id: 'upload-featured' });
  const chooser = h('input', { type: 'file', accept: '.epub,.pdf,.m4b,.mp3,.zip,.audiobook,application/epub+zip,application/pdf,audio/mp4,audio/mpeg,application/zip', multiple: true });
  const list = h('ul', { class: 'uploads', 'aria-label': 'Uploads' });
  const zone = h('div', { class: 'dropzone' },
    h('p', {}, 'Drop books here (EPUB, PDF; audiobooks as M4B, MP3, a ZIP of MP3 tracks or a .audiobook package), or choose them:'),
    field('Book files', chooser));

  async function upload(files) {
    const query = new URLSearchParams({ copies: String(Number(copies.value) || 0), open_access: String(openAccess.checked), featured: String(featured.checked) });
    const jobs = [...files].map((file) => {
      const progress = h('progress', { max: 1, value: 0, 'aria-label': `Uploading ${file.name}` });
      const result = h('div', { 'aria-live': 'polite' });
      list.append(h('li', {}, h('strong', {}, file.name), ' ', progress, result));
      return { file, progress, result };
    });
    // Two at a time: the machine ingests while the next file travels.
    let next = 0;
    async function worker() {
      while (next < jobs.length) {
        const { file, progress, result } = jobs[next++];
        try {
          const book = await uploadBook(file, query.toString(), (share) => { progress.value = share; });
          progress.value = 1;
          const warnings = book.warnings || [];
          show(result,
            h('p', { class: 'success' }, `${book.outcome === 'created' ? 'Added' : 'Already in the catalog'}: ${book.title}`),
            warnings.length ? h('ul', { 'aria-label': `Warnings for ${file.name}` }, warnings.map((w) => h('li', {}, typeof w === 'string' ? w : w.message || JSON.stringify(w)))) : null);
          announce(`${file.name}: ${book.title} added`);
        } catch (error) {
          show(result, h('p', { class: 'error', role: 'alert' }, `${file.name}: ${error.message}`));
        }
      }
    }
    await Promise.all([worker(), worker()]);
    announce('Uploads finished');
  }

  chooser.addEventListener('change', () => { if (chooser.files.length) upload(chooser.files); });
  zone.addEventListener('dragover', (event) => { event.preventDefault(); zone.classList.add('over'); });
  zone.addEventListener('dragleave', () => zone.classList.remove('over'));
  zone.addEventListener('drop', (event) => {
    event.preventDefault();
    zone.classList.remove('over');
    const files = [...event.dataTransfer.files].filter((f) => f.name.toLowerCase().endsWith('.epub'));
    if (files.length) upload(files);
  });
  show(main,
    heading('Upload books'),
    h('fieldset', {}, h('legend', {}, 'For every file'),
      field('Copies', copies),
      h('div', { class: 'inline' }, openAccess, h('label', { for: openAccess.id }, 'Open access (free to read, no loan needed)')),
      h('div', { class: 'inline' }, featured, h('label', { for: featured.id }, 'Featured'))),
    zone,
    list);
}
