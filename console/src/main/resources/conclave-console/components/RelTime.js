// A time shown relative ("3 min ago"), with the absolute time as tooltip; refreshed by the shared clock.
import { html } from '../lib/html.js';
import { absolute, relative } from '../lib/time.js';
import { useNow } from '../state/clock.js';

export function RelTime({ at, prefix = '' }) {
  useNow(); // re-render on every tick of the shared clock
  if (!at) return html`<span class="muted">—</span>`;
  return html`<time datetime=${at} title=${absolute(at)}>${prefix}${relative(at)}</time>`;
}
