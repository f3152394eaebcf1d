// Sign in with a library card and PIN or a username and password; sign up with either.
import { signIn, signUp, singleSignOnHref } from '../api.js';
import { field, h, heading, show } from '../dom.js';

function done() {
  document.dispatchEvent(new CustomEvent('session-changed'));
  // Home, unless the patron already went elsewhere while the answer travelled.
  if (['#/signin', '#/signup'].includes(location.hash.split('?')[0])) location.hash = '#/';
}

/** The library's authentication document (its sign-in flows and links), or null offline. */
async function authDocument() {
  try {
    const reply = await fetch('/auth/document', { headers: { Accept: 'application/json' } });
    return reply.ok ? await reply.json() : null;
  } catch { return null; }
}

/** The library's single sign-on, when its authentication document offers one (OPDS' implicit flow). */
function singleSignOn(document) {
  const flow = (document?.authentication || []).find((f) => f.type === 'http://opds-spec.org/auth/oauth/implicit');
  const authenticate = flow?.links?.find((link) => link.rel === 'authenticate');
  if (!authenticate) return null;
  const link = h('a', { class: 'button', href: '#' }, flow.description || 'Sign in with your library account');
  // The state is made when the patron goes, so that a page left open does not reuse it.
  link.addEventListener('click', (event) => { event.preventDefault(); location.assign(singleSignOnHref(authenticate.href)); });
  return h('div', { class: 'stack' }, h('p', { class: 'actions' }, link), h('p', {}, 'Or with a card and PIN, or a username and password:'));
}

export async function signInView(main, { query } = {}) {
  const user = h('input', { name: 'username', autocomplete: 'username', required: true, spellcheck: false });
  const secret = h('input', { name: 'password', type: 'password', autocomplete: 'current-password', required: true });
  const message = h('div', { 'aria-live': 'assertive' });
  const form = h('form', { class: 'stack', onsubmit: async (event) => {
    event.preventDefault();
    message.replaceChildren();
    try {
      await signIn(user.value.trim(), secret.value);
      done();
    } catch (error) {
      message.append(h('p', { class: 'error', role: 'alert' }, error.status === 401 ? 'That card number or PIN, or username or password, is not right.' : error.message));
    }
  } },
  field('Library card number or username', user),
  field('PIN or password', secret),
  message,
  h('div', { class: 'actions' }, h('button', { type: 'submit' }, 'Sign in')));
  if (query?.get('error')) message.append(h('p', { class: 'error', role: 'alert' }, query.get('error')));
  const document = await authDocument();
  const sso = singleSignOn(document);
  // Sign-up only where the library takes it (its document's register link; offline, as before).
  const signUp = !document || (document.links || []).some((link) => link.rel === 'register');
  show(main, heading('Sign in'), ...(sso ? [sso] : []), form, ...(signUp ? [h('p', {}, 'New here? ', h('a', { href: '#/signup' }, 'Create an account'))] : []));
}

export async function signUpView(main) {
  const kind = h('select', {}, h('option', { value: 'password' }, 'Username and password'), h('option', { value: 'card' }, 'Library card and PIN'));
  const message = h('div', { 'aria-live': 'assertive' });
  const fields = h('div');
  const inputs = {};
  function render() {
    const card = kind.value === 'card';
    for (const key of Object.keys(inputs)) delete inputs[key];
    if (card) {
      inputs.barcode = h('input', { name: 'barcode', inputmode: 'numeric', autocomplete: 'username', pattern: '[0-9]{14}' });
      inputs.pin = h('input', { name: 'pin', type: 'password', inputmode: 'numeric', autocomplete: 'new-password', required: true, pattern: '[0-9]{4,8}' });
      show(fields, field('Library card number (14 digits; leave empty for a new card)', inputs.barcode), field('PIN (4 to 8 digits)', inputs.pin));
    } else {
      inputs.username = h('input', { name: 'username', autocomplete: 'username', required: true, spellcheck: false });
      inputs.email = h('input', { name: 'email', type: 'email', autocomplete: 'email', required: true });
      inputs.password = h('input', { name: 'password', type: 'password', autocomplete: 'new-password', required: true, minlength: 8 });
      show(fields, field('Username', inputs.username), field('Email', inputs.email), field('Password (at least 8 characters)', inputs.password));
    }
  }
  kind.addEventListener('change', render);
  render();
  const form = h('form', { class: 'stack', onsubmit: async (event) => {
    event.preventDefault();
    message.replaceChildren();
    try {
      const fields = Object.entries(inputs).map(([key, input]) => [key, input.value.trim()]).filter(([, value]) => value !== '');
      const patron = await signUp(Object.fromEntries(fields));
      if (kind.value === 'card') {
        // A new card's number is the patron's to keep: show it before going on.
        document.dispatchEvent(new CustomEvent('session-changed'));
        show(main, heading('Welcome to Bookmobile'),
          h('p', {}, 'Your library card number is ', h('strong', { id: 'new-barcode' }, patron.barcode), '. Sign in with it and your PIN in any reading app.'),
          h('p', {}, h('a', { class: 'button', href: '#/' }, 'Start browsing')));
        return;
      }
      done();
    } catch (error) {
      message.append(h('p', { class: 'error', role: 'alert' }, error.message));
    }
  } }, field('Sign up with', kind), fields, message, h('div', { class: 'actions' }, h('button', { type: 'submit' }, 'Create account')));
  show(main, heading('Create an account'), form, h('p', {}, 'Have an account? ', h('a', { href: '#/signin' }, 'Sign in')));
}
