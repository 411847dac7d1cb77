// The empty state of a view or a section.
import { html } from '../lib/html.js';

export function Empty({ title, children }) {
  return html`<div class="empty" data-testid="empty">
    <p class="empty-title">${title}</p>
    ${children ? html`<p class="empty-hint">${children}</p>` : null}
  </div>`;
}
