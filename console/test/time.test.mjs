// Relative and absolute times.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { absolute, duration, relative } from '../src/main/resources/conclave-console/lib/time.js';

const NOW = Date.parse('2026-01-19T10:00:00Z');

test('relative times', () => {
  assert.equal(relative('2026-01-19T09:59:58Z', NOW), 'just now');
  assert.equal(relative('2026-01-19T09:59:30Z', NOW), '30 s ago');
  assert.equal(relative('2026-01-19T09:57:00Z', NOW), '3 min ago');
  assert.equal(relative('2026-01-19T07:00:00Z', NOW), '3 h ago');
  assert.equal(relative('2026-01-17T10:00:00Z', NOW), '2 days ago');
  assert.equal(relative('2026-01-19T10:02:00Z', NOW), 'in 2 min');
  assert.equal(relative('', NOW), '');
  assert.equal(relative('garbage', NOW), '');
});

test('absolute times and durations', () => {
  assert.match(absolute('2026-01-19T10:00:00Z'), /^2026-01-19 \d\d:00:00 \(UTC[+-]\d\d:\d\d\)$/);
  assert.equal(absolute(undefined), '');
  assert.equal(duration(60000), '1 min');
  assert.equal(duration(45000), '45 s');
  assert.equal(duration(3900000), '1 h 5 min');
});
