// The login screen: a pasted token is exchanged for the session cookie. The token is read from
// the field when the form is submitted and the field is cleared; it is kept nowhere else.
import { html } from '../lib/html.js';
import { useEffect, useRef, useState } from 'preact/hooks';
import { login } from '../lib/session.js';

export function Login({ expired, checkError }) {
  const input = useRef(null);
  const [error, setError] = useState('');
  const [busy, setBusy] = useState(false);

  useEffect(() => input.current && input.current.focus(), []);

  async function submit(e) {
    e.preventDefault();
    const field = input.current;
    if (!field.value.trim()) {
      setError('Paste a token first.');
      field.focus();
      return;
    }
    setBusy(true);
    setError('');
    try {
      await login(field.value.trim());
      field.value = '';
    } catch (err) {
      field.value = '';
      setError(err.detail || err.message || 'The token was not accepted.');
      setBusy(false);
      field.focus();
    }
  }

  return html`<main id="login-screen" class="login">
    <form class="card login-card" onSubmit=${submit} autocomplete="off" novalidate>
      <h1>Conclave console</h1>
      <p class="muted">Paste a Conclave token (an <code>api</code> token, or a <code>bridge</code> token to follow without acting).
        On a fresh node it is in <code>$CONCLAVE_DATA_DIR/admin.token</code>. It is exchanged for a session cookie and not kept by this page.</p>
      ${expired ? html`<p class="banner banner-info" role="status">Your session ended. Log in again.</p>` : null}
      ${checkError ? html`<p class="banner banner-warn" role="status">The session could not be checked: ${checkError.detail}</p>` : null}
      <label for="login-token">Token</label>
      <input id="login-token" ref=${input} type="password" name="token" spellcheck="false"
        autocomplete="off" autocapitalize="off" aria-describedby="login-error" />
      <div id="login-error" class="form-error" role="alert" aria-live="assertive">${error}</div>
      <button id="login-submit" type="submit" class="btn btn-primary" disabled=${busy}>${busy ? 'Logging in…' : 'Log in'}</button>
    </form>
  </main>`;
}
