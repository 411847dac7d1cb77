// The last failed action's problem detail, until dismissed or the view changes.
import { html } from '../lib/html.js';
import { clearError, lastError } from '../lib/errors.js';
import { useStore } from '../lib/store.js';

export function ErrorBanner() {
  const error = useStore(lastError);
  if (!error) return null;
  return html`<div id="error-banner" class="banner banner-error" role="alert">
    <div class="banner-text">
      <strong>${error.title}:</strong> <span data-testid="error-detail">${error.detail}</span>
      ${error.code ? html` <code class="muted">${error.code}</code>` : null}
    </div>
    <button type="button" class="btn-link" onClick=${clearError} aria-label="Dismiss the error">Dismiss</button>
  </div>`;
}
