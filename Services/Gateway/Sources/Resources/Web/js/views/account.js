// Account: profile, reader settings, mail, KOReader sync keys, hidden books, feedback, data export, account deletion, sign out.
import { api, session, signOut, singleSignOnHref, takeSyncKeyMade } from '../api.js';
import { announce, field, h, heading, show } from '../dom.js';
import { applyTheme } from '../header.js';

function settingsForm(settings) {
  const family = h('select', {}, h('option', { value: 'serif' }, 'Serif'), h('option', { value: 'sans-serif' }, 'Sans-serif'));
  family.value = settings.fontFamily;
  const size = h('input', { type: 'number', min: 50, max: 300, step: 10, value: settings.fontSize });
  const theme = h('select', {}, h('option', { value: 'day' }, 'Day'), h('option', { value: 'sepia' }, 'Sepia'), h('option', { value: 'night' }, 'Night'));
  theme.value = settings.theme;
  const brightness = h('input', { type: 'range', min: 0.3, max: 1, step: 0.05, value: settings.brightness });
  const sync = h('input', { type: 'checkbox', checked: settings.syncBookmarks, id: 'sync-bookmarks' });
  const message = h('p', { 'aria-live': 'polite' });
  return h('form', { class: 'stack', 'aria-labelledby': 'settings-title', onsubmit: async (event) => {
    event.preventDefault();
    try {
      const saved = await api('/me/settings', { method: 'PUT', body: {
        fontFamily: family.value, fontSize: Number(size.value), theme: theme.value, brightness: Number(brightness.value), syncBookmarks: sync.checked,
      } });
      applyTheme(saved.theme);
      show(message, h('span', { class: 'success' }, 'Settings saved.'));
    } catch (error) {
      show(message, h('span', { class: 'error', role: 'alert' }, error.message));
    }
  } },
  h('h2', { id: 'settings-title' }, 'Reading settings'),
  field('Font', family), field('Font size (percent)', size), field('Theme', theme), field('Brightness', brightness),
  h('div', { class: 'inline' }, sync, h('label', { for: sync.id }, 'Keep bookmarks in sync across devices')),
  message,
  h('div', { class: 'actions' }, h('button', { type: 'submit' }, 'Save settings')));
}

const SUGGESTION_STATUS = { open: 'Asked', ordered: 'Ordered', declined: 'Not ordered', arrived: 'Arrived' };

/** The patron's purchase suggestions and the library's answers. */
async function suggestions() {
  const { suggestions: items } = await api('/me/suggestions');
  return h('section', { 'aria-labelledby': 'suggestions-title' }, h('h2', { id: 'suggestions-title' }, 'Your suggestions'),
    items.length ? h('ul', {}, items.map((item) => h('li', {},
      item.bookId ? h('a', { href: `#/book/${item.bookId}` }, item.title) : item.title,
      ` — ${SUGGESTION_STATUS[item.status] || item.status}`, item.answer ? `: ${item.answer}` : ''))) :
      h('p', { class: 'muted' }, 'Search for a title the library does not have to ask for it.'));
}

async function hiddenBooks() {
  const list = h('ul');
  const section = h('section', { 'aria-labelledby': 'hidden-title' }, h('h2', { id: 'hidden-title' }, 'Hidden books'), list);
  const { books } = await api('/me/ignored');
  if (!books.length) list.replaceWith(h('p', { class: 'muted' }, 'You have hidden no books.'));
  for (const book of books) {
    const restore = h('button', { type: 'button', class: 'secondary', 'aria-label': `Restore ${book.title || 'this book'}` }, 'Restore');
    const item = h('li', {}, h('a', { href: `#/book/${book.bookId}` }, book.title || 'Untitled'), ' ', restore);
    restore.addEventListener('click', async () => {
      await api(`/me/books/${book.bookId}/ignored`, { method: 'DELETE' });
      item.remove();
      announce(`${book.title} shows in your feeds again`);
    });
    list.append(item);
  }
  return section;
}

const MAIL_KINDS = [
  ['loan_offered', 'A hold is ready for me'],
  ['offer_expiring', 'An offer ends within a day'],
  ['loan_due_soon', 'A loan ends soon'],
  ['loan_expired', 'A loan has ended'],
  ['hold_resumed', 'A suspended hold is active again'],
  ['suggestion_arrived', 'A book I asked for has arrived'],
];

/** Mail: the address's state (verified, refused), a new verification link, which messages arrive, their language. */
async function mailSettings() {
  const settings = await api('/me/mail');
  const message = h('p', { 'aria-live': 'polite', id: 'mail-message' });
  const state = !settings.email ? 'Add an email address to your profile to get messages from the library.'
    : settings.refused ? `Mail to ${settings.email} was refused (${settings.refused}); check the address.`
    : settings.verified ? `Messages go to ${settings.email}.`
    : `${settings.email} is not confirmed yet: nothing is sent to it until you open the link we mail you.`;
  const verify = h('button', { type: 'button', class: 'secondary', onclick: async () => {
    try {
      await api('/me/mail/verification', { method: 'POST' });
      show(message, h('span', { class: 'success' }, `A link was sent to ${settings.email}.`));
    } catch (error) {
      show(message, h('span', { class: 'error', role: 'alert' }, error.message));
    }
  } }, 'Send the confirmation link');
  const boxes = MAIL_KINDS.map(([kind, label]) => {
    const box = h('input', { type: 'checkbox', id: `mail-${kind}`, checked: settings.kinds[kind] !== false });
    return [kind, box, h('div', { class: 'inline' }, box, h('label', { for: box.id }, label))];
  });
  const language = h('select', { id: 'mail-language' }, h('option', { value: 'en' }, 'English'), h('option', { value: 'fr' }, 'Français'));
  language.value = settings.language;
  return h('form', { class: 'stack', 'aria-labelledby': 'mail-title', onsubmit: async (event) => {
    event.preventDefault();
    try {
      await api('/me/mail', { method: 'PUT', body: {
        kinds: Object.fromEntries(boxes.map(([kind, box]) => [kind, box.checked])), language: language.value,
      } });
      show(message, h('span', { class: 'success' }, 'Mail settings saved.'));
    } catch (error) {
      show(message, h('span', { class: 'error', role: 'alert' }, error.message));
    }
  } },
  h('h2', { id: 'mail-title' }, 'Email'),
  h('p', { id: 'mail-state' }, state),
  settings.email && !settings.verified ? h('div', { class: 'actions' }, verify) : null,
  h('fieldset', {}, h('legend', {}, 'Email me when'), ...boxes.map(([, , row]) => row)),
  field('Language of messages', language),
  settings.mailEnabled ? null : h('p', { class: 'muted' }, 'This library does not send email yet; your choices are kept.'),
  message,
  h('div', { class: 'actions' }, h('button', { type: 'submit' }, 'Save mail settings')));
}

/** KOReader sync keys: make one per device with the PIN or password (its user name and key shown once), list them,
 * revoke one. A new PIN or password, or signing out everywhere, revokes them all. A patron of the library's identity
 * provider has no PIN here: their key is made through the provider, and shown when they come back to this page. */
async function syncKeys(me) {
  const throughProvider = me.signIn === 'oidc';
  const list = h('ul', { id: 'sync-keys' });
  const device = h('input', { type: 'text', required: true, maxlength: 100, placeholder: 'Kobo Clara', autocomplete: 'off' });
  // A key outlives this session: the server asks for the PIN or password again (or the provider) before it makes one.
  const secret = h('input', { type: 'password', required: true, maxlength: 128, autocomplete: 'current-password' });
  const message = h('div', { 'aria-live': 'polite' });
  const server = `${location.origin}/kosync`;
  function row(key) {
    const revoke = h('button', { type: 'button', class: 'secondary', 'aria-label': `Revoke the key of ${key.device}` }, 'Revoke');
    const used = key.lastUsedAt ? `last used ${new Date(key.lastUsedAt).toLocaleDateString()}` : 'not used yet';
    const item = h('li', {}, h('strong', {}, key.device), ` (user name ${key.username}, ${used}) `, revoke);
    revoke.addEventListener('click', async () => {
      if (!(await confirmDialog(`Revoke the sync key of ${key.device}?`, 'Revoke'))) return;
      await api(`/me/sync-keys/${key.id}`, { method: 'DELETE' });
      item.remove();
      announce(`The sync key of ${key.device} was revoked`);
    });
    return item;
  }
  function showMade(key) {
    show(message, h('div', { class: 'success', role: 'status' },
      h('p', {}, `In KOReader on ${key.device}: Progress sync, Custom sync server `, h('code', {}, server),
        ', then Register / Login with:'),
      h('dl', { class: 'profile' }, h('dt', {}, 'Username'), h('dd', {}, h('code', { id: 'sync-key-username' }, key.username)),
        h('dt', {}, 'Password'), h('dd', {}, h('code', { id: 'sync-key-key' }, key.key))),
      h('p', {}, 'The password is shown only now.')));
  }
  const form = h('form', { class: 'stack', onsubmit: async (event) => {
    event.preventDefault();
    if (throughProvider) {
      location.assign(singleSignOnHref('/auth/oidc/authorize', { purpose: 'sync-key', device: device.value }));
      return;
    }
    try {
      const key = await api('/me/sync-keys', { method: 'POST', body: { device: device.value, secret: secret.value } });
      list.append(row(key));
      device.value = '';
      secret.value = '';
      showMade(key);
    } catch (error) {
      show(message, h('span', { class: 'error', role: 'alert' }, error.message));
    }
  } }, field('Device name', device), throughProvider ? null : field('Your PIN or password, to make a key', secret),
  h('div', { class: 'actions' }, h('button', { type: 'submit' }, throughProvider ? 'Make a sync key at the sign-in service' : 'Make a sync key')));
  const { syncKeys: keys } = await api('/me/sync-keys');
  for (const key of keys) list.append(row(key));
  const made = takeSyncKeyMade();
  // Back from the sign-in service: the page shows what it did where the patron will look (`accountView` scrolls).
  if (made) message.id = 'sync-key-made';
  if (made?.error) {
    show(message, h('span', { class: 'error', role: 'alert' }, made.error));
  } else if (made && keys.some((key) => key.id === made.id)) {
    showMade(made);
  } else if (made) {
    // The provider signed in someone else: the key is theirs, and not shown here.
    show(message, h('span', { class: 'error', role: 'alert' }, 'The sign-in service signed in another account; that account has the key.'));
  }
  return h('section', { 'aria-labelledby': 'sync-keys-title' }, h('h2', { id: 'sync-keys-title' }, 'KOReader sync'),
    h('p', {}, 'KOReader on an e-reader can keep your place in the books you borrow in step with this web reader. ',
      throughProvider ? 'Each device gets its own key, made after you confirm it is you at the sign-in service.'
        : 'Each device gets its own key; your PIN never leaves this site.'),
    list, form, message);
}

function feedbackForm() {
  const kind = h('select', {}, h('option', { value: 'general' }, 'General'), h('option', { value: 'accessibility' }, 'Accessibility'));
  const text = h('textarea', { rows: 4, required: true, maxlength: 5000 });
  const message = h('p', { 'aria-live': 'polite' });
  return h('form', { class: 'stack', 'aria-labelledby': 'feedback-title', onsubmit: async (event) => {
    event.preventDefault();
    try {
      await api('/feedback', { method: 'POST', body: { message: text.value, kind: kind.value } });
      text.value = '';
      show(message, h('span', { class: 'success' }, 'Thank you: your feedback was sent.'));
    } catch (error) {
      show(message, h('span', { class: 'error', role: 'alert' }, error.message));
    }
  } }, h('h2', { id: 'feedback-title' }, 'Send feedback'), field('About', kind), field('Your message', text), message,
  h('div', { class: 'actions' }, h('button', { type: 'submit' }, 'Send feedback')));
}

async function exportData(button) {
  button.disabled = true;
  try {
    const data = await api('/me/export');
    const url = URL.createObjectURL(new Blob([JSON.stringify(data, null, 2)], { type: 'application/json' }));
    const link = h('a', { href: url, download: 'bookmobile-export.json' });
    document.body.append(link);
    link.click();
    link.remove();
    setTimeout(() => URL.revokeObjectURL(url), 10000);
    announce('Your data was exported');
  } finally {
    button.disabled = false;
  }
}

function confirmDialog(question, confirmLabel) {
  return new Promise((resolve) => {
    const previous = document.activeElement;
    const close = (answer) => { backdrop.remove(); previous?.focus(); resolve(answer); };
    const cancel = h('button', { type: 'button', class: 'secondary', onclick: () => close(false) }, 'Cancel');
    const confirm = h('button', { type: 'button', class: 'danger', onclick: () => close(true) }, confirmLabel);
    const dialog = h('div', { class: 'dialog', role: 'alertdialog', 'aria-modal': 'true', 'aria-labelledby': 'dialog-title' },
      h('h2', { id: 'dialog-title' }, question), h('div', { class: 'actions' }, cancel, confirm));
    const backdrop = h('div', { class: 'dialog-backdrop', onkeydown: (event) => {
      if (event.key === 'Escape') close(false);
      if (event.key === 'Tab') { event.preventDefault(); (document.activeElement === cancel ? confirm : cancel).focus(); }
    } }, dialog);
    document.body.append(backdrop);
    cancel.focus();
  });
}

export async function accountView(main) {
  if (!session.signedIn) { location.hash = '#/signin'; return; }
  const [me, settings] = await Promise.all([api('/me'), api('/me/settings')]);
  const exportButton = h('button', { type: 'button', class: 'secondary', onclick: () => exportData(exportButton) }, 'Export my data');
  const deleteButton = h('button', { type: 'button', class: 'danger', onclick: async () => {
    if (!(await confirmDialog('Delete your account and all its data?', 'Delete my account'))) return;
    await api('/me', { method: 'DELETE' });
    session.clear();
    document.dispatchEvent(new CustomEvent('session-changed'));
    location.hash = '#/';
    announce('Your account was deleted');
  } }, 'Delete my account');
  const signOutButton = h('button', { type: 'button', onclick: async () => {
    await signOut();
    document.dispatchEvent(new CustomEvent('session-changed'));
    location.hash = '#/';
    announce('Signed out');
  } }, 'Sign out');
  show(main,
    heading('Account'),
    h('dl', { class: 'profile' },
      h('dt', {}, 'Name'), h('dd', {}, me.displayName || me.username || ''),
      h('dt', {}, 'Library card'), h('dd', {}, me.barcode),
      h('dt', {}, 'Loans'), h('dd', {}, `${me.loans.count} of ${me.loans.limit}`),
      h('dt', {}, 'Holds'), h('dd', {}, `${me.holds.count} of ${me.holds.limit}`)),
    h('div', { class: 'actions' }, signOutButton),
    settingsForm(settings),
    await mailSettings(),
    await syncKeys(me),
    await suggestions(),
    await hiddenBooks(),
    feedbackForm(),
    h('section', { 'aria-labelledby': 'data-title' }, h('h2', { id: 'data-title' }, 'Your data'),
      h('p', {}, 'Download everything Bookmobile keeps about you, or delete your account with all its loans, holds, bookmarks and lists.'),
      h('div', { class: 'actions' }, exportButton, deleteButton)));
  document.getElementById('sync-key-made')?.scrollIntoView({ block: 'center' });
}
