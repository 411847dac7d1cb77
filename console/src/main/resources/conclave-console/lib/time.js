// Relative times ("3 min ago") with the absolute time for tooltips. Pure: usable from Node tests.

const UNITS = [
  ['year', 365 * 24 * 3600],
  ['month', 30 * 24 * 3600],
  ['day', 24 * 3600],
  ['h', 3600],
  ['min', 60],
];

function parse(value) {
  if (value === undefined || value === null || value === '') return null;
  const d = value instanceof Date ? value : new Date(value);
  return Number.isNaN(d.getTime()) ? null : d;
}

/** "just now", "5 s ago", "3 min ago", "2 h ago", "4 days ago", "in 2 min"; "" for no time. */
export function relative(value, now = Date.now()) {
  const d = parse(value);
  if (!d) return '';
  const diff = Math.round((now - d.getTime()) / 1000);
  const abs = Math.abs(diff);
  if (abs < 5) return 'just now';
  let text;
  if (abs < 60) {
    text = `${abs} s`;
  } else {
    const [unit, size] = UNITS.find(([, s]) => abs >= s);
    const n = Math.floor(abs / size);
    const plural = n > 1 && (unit === 'day' || unit === 'month' || unit === 'year') ? 's' : '';
    text = `${n} ${unit}${plural}`;
  }
  return diff >= 0 ? `${text} ago` : `in ${text}`;
}

/** The absolute local time, e.g. "2026-01-19 10:01:00 (UTC+01:00)"; "" for no time. */
export function absolute(value) {
  const d = parse(value);
  if (!d) return '';
  const pad = (n) => String(n).padStart(2, '0');
  const off = -d.getTimezoneOffset();
  const zone = `UTC${off >= 0 ? '+' : '-'}${pad(Math.floor(Math.abs(off) / 60))}:${pad(Math.abs(off) % 60)}`;
  return `${d.getFullYear()}-${pad(d.getMonth() + 1)}-${pad(d.getDate())} `
    + `${pad(d.getHours())}:${pad(d.getMinutes())}:${pad(d.getSeconds())} (${zone})`;
}

/** Milliseconds as "45 s", "2 min", "1 h 5 min". */
export function duration(ms) {
  if (ms === undefined || ms === null || Number.isNaN(Number(ms))) return '';
  const s = Math.round(Number(ms) / 1000);
  if (s < 60) return `${s} s`;
  const m = Math.floor(s / 60);
  if (m < 60) return `${m} min${s % 60 ? ` ${s % 60} s` : ''}`;
  return `${Math.floor(m / 60)} h${m % 60 ? ` ${m % 60} min` : ''}`;
}
