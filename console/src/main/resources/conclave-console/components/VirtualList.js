// A list that renders only the rows in view (plus a margin) once it is long, so that thousands of
// rows stay fast. Rows have a fixed height. Short lists render every row, in normal flow.
import { html } from '../lib/html.js';
import { useEffect, useRef, useState } from 'preact/hooks';

export const WINDOW_FROM = 100; // lists at least this long are windowed

export function VirtualList({ items, rowHeight, renderRow, overscan = 8, label, className = '' }) {
  const ref = useRef(null);
  const [scrollTop, setScrollTop] = useState(0);
  const [height, setHeight] = useState(600);
  const windowed = items.length >= WINDOW_FROM;

  useEffect(() => {
    const el = ref.current;
    if (!el || !windowed) return undefined;
    const measure = () => setHeight(el.clientHeight || 600);
    measure();
    const observer = typeof ResizeObserver === 'function' ? new ResizeObserver(measure) : null;
    if (observer) observer.observe(el);
    else window.addEventListener('resize', measure);
    return () => (observer ? observer.disconnect() : window.removeEventListener('resize', measure));
  }, [windowed]);

  // keep the scroll position inside the (possibly shorter) list
  useEffect(() => {
    const el = ref.current;
    if (el && windowed && el.scrollTop > items.length * rowHeight) el.scrollTop = 0;
  }, [items.length, windowed, rowHeight]);

  if (!windowed) {
    return html`<div class=${`vlist ${className}`} role="list" aria-label=${label}>
      ${items.map((item, i) => renderRow(item, i))}
    </div>`;
  }
  const first = Math.max(0, Math.floor(scrollTop / rowHeight) - overscan);
  const last = Math.min(items.length, Math.ceil((scrollTop + height) / rowHeight) + overscan);
  const rows = [];
  for (let i = first; i < last; i++) {
    rows.push(html`<div class="vlist-slot" key=${items[i].key || items[i].id || i}
      style=${`position:absolute;left:0;right:0;top:${i * rowHeight}px;height:${rowHeight}px`}>${renderRow(items[i], i)}</div>`);
  }
  return html`<div ref=${ref} class=${`vlist vlist-windowed ${className}`} role="list" aria-label=${label}
      onScroll=${(e) => setScrollTop(e.currentTarget.scrollTop)}>
    <div style=${`position:relative;height:${items.length * rowHeight}px`}>${rows}</div>
  </div>`;
}
