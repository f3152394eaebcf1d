// Loads one chapter of a publication into the reader's frame. Publication resources need the patron's token, which
// an <img> or <link> cannot send: each resource is fetched with it and handed to the frame as a blob: URL. The
// book's scripts and event-handler attributes are dropped (the frame is sandboxed without scripts as well).
import { api } from '../api.js';

export class ResourceCache {
  constructor() { this.urls = new Map(); }

  /** A blob: URL for a publication resource (fetched once). */
  async blobURL(href) {
    if (!this.urls.has(href)) {
      this.urls.set(href, (async () => {
        const reply = await api(href, { raw: true, accept: '*/*' });
        let blob = await reply.blob();
        if ((reply.headers.get('Content-Type') || '').includes('text/css')) blob = await this.stylesheet(await blob.text(), href);
        return URL.createObjectURL(blob);
      })().catch(() => null));
    }
    return this.urls.get(href);
  }

  /** A stylesheet whose url(...) references (fonts, images) point at blob: URLs. */
  async stylesheet(text, base) {
    const references = [...text.matchAll(/url\(\s*(['"]?)([^'")]+)\1\s*\)/g)].map((m) => m[2]).filter((u) => !u.startsWith('data:'));
    const resolved = await Promise.all(references.map((u) => this.blobURL(new URL(u, new URL(base, location.href)).pathname)));
    let result = text;
    references.forEach((reference, index) => { if (resolved[index]) result = result.split(reference).join(resolved[index]); });
    return new Blob([result], { type: 'text/css' });
  }

  release() {
    for (const pending of this.urls.values()) pending.then((url) => url && URL.revokeObjectURL(url));
    this.urls.clear();
  }
}

const SKELETON = '<!doctype html><html><head><meta charset="utf-8"><link rel="stylesheet" href="/web/css/reader-frame.css"></head><body></body></html>';

function parse(text, type) {
  const parser = new DOMParser();
  if (type?.includes('xhtml') || type?.includes('xml')) {
    const doc = parser.parseFromString(text, 'application/xhtml+xml');
    if (!doc.querySelector('parsererror')) return doc;
  }
  return parser.parseFromString(text, 'text/html');
}

/**
 * Whether an attribute's value is a script URL as a browser reads it: URL parsing drops ASCII tabs and newlines anywhere
 * and leading control characters and spaces, so `java&#9;script:` (a tab once the markup is parsed) is `javascript:`.
 */
export function isScriptURL(value) {
  const scheme = String(value).replace(/[\u0000-\u0020\u007f]/g, '').toLowerCase();
  return scheme.startsWith('javascript:') || scheme.startsWith('vbscript:');
}

function clean(doc) {
  for (const element of doc.querySelectorAll('script, iframe, object, embed, base, meta[http-equiv]')) element.remove();
  for (const element of doc.querySelectorAll('*')) {
    for (const attribute of [...element.attributes]) {
      if (attribute.name.toLowerCase().startsWith('on') || isScriptURL(attribute.value)) element.removeAttribute(attribute.name);
    }
  }
}

/**
 * Fills `frame` with the chapter at `href` (an absolute publication URL). Resolves once its stylesheets are applied,
 * so that pages can be measured.
 */
export async function loadChapter(frame, href, type, cache) {
  const text = await api(href, { accept: type || 'application/xhtml+xml', raw: true }).then((reply) => reply.text());
  const source = parse(text, type);
  clean(source);
  const base = new URL(href, location.href);
  const resolve = (reference) => new URL(reference, base).pathname;

  await new Promise((resolveLoad) => { frame.addEventListener('load', resolveLoad, { once: true }); frame.srcdoc = SKELETON; });
  const doc = frame.contentDocument;
  const sheets = [];
  for (const node of source.querySelectorAll('link[rel~="stylesheet"][href], style')) {
    const url = node.localName === 'style'
      ? URL.createObjectURL(await cache.stylesheet(node.textContent, href))
      : await cache.blobURL(resolve(node.getAttribute('href')));
    if (!url) continue;
    const link = doc.createElement('link');
    link.rel = 'stylesheet';
    link.href = url;
    sheets.push(new Promise((done) => { link.addEventListener('load', done); link.addEventListener('error', done); }));
    doc.head.insertBefore(link, doc.head.firstChild);
  }
  for (const image of source.querySelectorAll('img[src]')) {
    const url = await cache.blobURL(resolve(image.getAttribute('src')));
    if (url) image.setAttribute('src', url); else image.removeAttribute('src');
  }
  for (const image of source.querySelectorAll('image')) {
    const reference = image.getAttribute('href') || image.getAttributeNS('http://www.w3.org/1999/xlink', 'href');
    if (!reference) continue;
    const url = await cache.blobURL(resolve(reference));
    if (url) { image.setAttribute('href', url); image.setAttributeNS('http://www.w3.org/1999/xlink', 'xlink:href', url); }
  }
  for (const node of [...source.body.childNodes]) doc.body.append(doc.importNode(node, true));
  for (const attribute of ['lang', 'dir']) {
    const value = source.documentElement.getAttribute(attribute) || source.documentElement.getAttribute(`xml:${attribute}`);
    if (value) doc.documentElement.setAttribute(attribute, value);
  }
  await Promise.all(sheets);
  await Promise.all([...doc.images].map((img) => (img.complete ? null : new Promise((done) => { img.addEventListener('load', done); img.addEventListener('error', done); }))));
  return doc;
}
