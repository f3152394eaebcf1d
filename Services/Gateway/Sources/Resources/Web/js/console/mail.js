// The mail queue: how many messages were sent, wait for the relay or failed, and the latest ones with the reason.
import { h, heading, show } from '../dom.js';
import { admin } from './admin-api.js';

const STATUSES = [['', 'All'], ['waiting', 'Waiting'], ['failed', 'Failed'], ['sent', 'Sent']];

export async function mailView(main, { query }) {
  const status = query.get('status') || '';
  const queue = await admin(`/admin/mail${status ? `?status=${status}` : ''}`);
  const when = (date) => (date ? new Date(date).toLocaleString() : '');
  show(main,
    heading('Mail'),
    h('p', { id: 'mail-counts' }, `Sent ${queue.counts.sent}, waiting ${queue.counts.waiting}, failed ${queue.counts.failed}.`),
    h('nav', { class: 'pager', 'aria-label': 'Show' }, STATUSES.map(([value, label]) => h('a', {
      href: `#/mail${value ? `?status=${value}` : ''}`, 'aria-current': value === status ? 'page' : null,
    }, label))),
    queue.messages.length ? h('div', { class: 'table-wrap' }, h('table', {},
      h('caption', {}, 'Latest messages, newest first'),
      h('thead', {}, h('tr', {}, ['Queued', 'Kind', 'To', 'Status', 'Tries', 'Reason or next try'].map((title) => h('th', { scope: 'col' }, title)))),
      h('tbody', {}, queue.messages.map((message) => h('tr', {},
        h('td', {}, when(message.createdAt)), h('td', {}, message.kind.replaceAll('_', ' ')), h('td', {}, message.address),
        h('td', {}, message.status === 'sent' ? `sent ${when(message.sentAt)}` : message.status), h('td', {}, String(message.attempts)),
        h('td', {}, [message.lastError || '', message.nextAttemptAt ? ` (next try ${when(message.nextAttemptAt)})` : ''].join(''))))))) :
      h('p', { class: 'muted' }, 'No messages.'));
}
