// The feedback inbox, newest first.
import { h, heading, show } from '../dom.js';
import { admin } from './admin-api.js';

export async function feedbackView(main, { query }) {
  const after = query.get('after');
  const page = await admin(`/admin/feedback?size=25${after ? `&after=${after}` : ''}`);
  const nextAfter = page.next ? new URL(page.next, location.href).searchParams.get('after') : null;
  show(main,
    heading('Feedback'),
    page.feedback.length ? h('ul', { class: 'shelf-list', 'aria-label': 'Feedback, newest first' }, page.feedback.map((item) => h('li', { class: 'feedback-item' },
      h('p', {}, item.message),
      h('p', { class: 'muted' }, [item.email ? `From ${item.email}` : 'Anonymous', item.bookId ? ' · about ' : null,
        item.bookId ? h('a', { href: `/#/book/${item.bookId}` }, 'a book') : null])))) : h('p', { class: 'muted' }, 'No feedback yet.'),
    nextAfter ? h('nav', { class: 'pager', 'aria-label': 'Pages' }, h('a', { href: `#/feedback?after=${nextAfter}` }, 'Next page')) : null);
}
