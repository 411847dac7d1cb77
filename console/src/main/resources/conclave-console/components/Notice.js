// A notice in place of a view the caller may not use.
import { html } from '../lib/html.js';

export function AdminOnly({ what }) {
  return html`<div class="notice" data-testid="admin-only" role="note">
    <h2>Administrators only</h2>
    <p>${what} is available to principals with the <code>admin</code> or <code>owner</code> role.
      Your session is a member's; ask an administrator if you need access.</p>
  </div>`;
}
