// Preformatted text (tool input and output), collapsed when long.
import { html } from '../lib/html.js';
import { prettyJson } from '../model/events.js';

const LONG = 600;

export function Code({ text, label, open = false, error = false }) {
  const body = prettyJson(text || '');
  const cls = `code${error ? ' code-error' : ''}`;
  if (!body) return null;
  if (body.length <= LONG && body.split('\n').length <= 12) {
    return html`<pre class=${cls}>${body}</pre>`;
  }
  return html`<details class="code-details" open=${open}>
    <summary>${label || 'Show'} (${body.length.toLocaleString()} characters)</summary>
    <pre class=${cls}>${body}</pre>
  </details>`;
}
