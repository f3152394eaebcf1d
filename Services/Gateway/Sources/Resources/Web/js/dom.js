// Small DOM helpers: elements from data (never from HTML strings), announcements, page titles.

/**
 * h('button', {class: 'x', onclick: fn, 'aria-label': 'Close'}, 'text', child) builds an element; `null`,
 * `false` and `undefined` children are skipped, arrays are flattened, strings become text nodes.
 */
export function h(tag, props = {}, ...children) {
  const element = document.createElement(tag);
  for (const [key, value] of Object.entries(props || {})) {
    if (value === undefined || value === null || value === false) continue;
    if (key.startsWith('on') && typeof value === 'function') element.addEventListener(key.slice(2), value);
    else if (key === 'class') element.className = value;
    else if (key === 'text') element.textContent = value;
    else if (key in element && !key.includes('-') && key !== 'list' && key !== 'form') element[key] = value;
    else element.setAttribute(key, value === true ? '' : value);
  }
  append(element, children);
  return element;
}

function append(element, children) {
  for (const child of children.flat(Infinity)) {
    if (child === null || child === undefined || child === false) continue;
    element.append(child instanceof Node ? child : document.createTextNode(String(child)));
  }
}

/** Replaces the contents of `element`. */
export function show(element, ...children) {
  element.replaceChildren();
  append(element, children);
  return element;
}

/** Says something to screen-reader users (and to the tests) through the page's live region. */
export function announce(text) {
  const status = document.getElementById('status');
  status.textContent = '';
  setTimeout(() => { status.textContent = text; }, 30);
}

/** Sets the document title and returns the page's h1. */
export function heading(text) {
  document.title = `${text} · Bookmobile`;
  return h('h1', {}, text);
}

/** A message paragraph for a failure, with the problem's words. */
export function failure(error) {
  return h('p', { class: 'error', role: 'alert' }, error?.message || 'Something went wrong.');
}

/** Dates as patrons read them. */
export function formatDate(iso) {
  if (!iso) return '';
  return new Date(iso).toLocaleString(undefined, { dateStyle: 'medium', timeStyle: 'short' });
}

/** A book's length as a patron reads it: `7 h 5 min`, `45 min`. */
export function formatLength(seconds) {
  const minutes = Math.max(1, Math.round(seconds / 60));
  return minutes >= 60 ? `${Math.floor(minutes / 60)} h ${minutes % 60} min` : `${minutes} min`;
}

/** A labelled form control: returns [label, control] with the label bound to the control's id. */
export function field(labelText, control) {
  control.id ||= 'f-' + Math.random().toString(36).slice(2, 9);
  return h('div', { class: 'field' }, h('label', { for: control.id }, labelText), control);
}
