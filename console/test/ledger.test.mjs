// The conversation log: dedupe by seq, gaps, trimming to the cap, scroll-back, detaching.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { ConversationLog } from '../src/main/resources/conclave-console/model/ledger.js';

const ev = (seq) => ({ seq, event: { text: { content: `c${seq}` } } });
const range = (from, to) => Array.from({ length: to - from + 1 }, (_, i) => ev(from + i));

test('reset keeps the page sorted and without duplicates', () => {
  const log = new ConversationLog();
  log.reset([ev(3), ev(1), ev(2), ev(2)], false);
  assert.deepEqual(log.entries.map((e) => e.seq), [1, 2, 3]);
  assert.equal(log.newest, 3);
  assert.equal(log.oldest, 1);
  assert.equal(log.hasOlder, false);
});

test('live events are classified against the newest seq', () => {
  const log = new ConversationLog();
  log.reset(range(1, 5), false);
  assert.equal(log.classify(5), 'duplicate');
  assert.equal(log.classify(2), 'duplicate');
  assert.equal(log.classify(6), 'next');
  assert.equal(log.classify(8), 'gap');
});

test('an empty conversation takes seq 1 as next', () => {
  const log = new ConversationLog();
  log.reset([], false);
  assert.equal(log.classify(1), 'next');
  assert.equal(log.append([ev(1)]), 1);
  assert.deepEqual(log.entries.map((e) => e.seq), [1]);
});

test('append ignores what is already there', () => {
  const log = new ConversationLog();
  log.reset(range(1, 3), false);
  assert.equal(log.append([ev(2), ev(3), ev(4), ev(4), ev(5)]), 2);
  assert.deepEqual(log.entries.map((e) => e.seq), [1, 2, 3, 4, 5]);
});

test('following live drops the oldest past the cap and allows loading them again', () => {
  const log = new ConversationLog(10);
  log.reset(range(1, 8), false);
  log.append(range(9, 15));
  assert.equal(log.entries.length, 10);
  assert.equal(log.oldest, 6);
  assert.equal(log.newest, 15);
  assert.equal(log.hasOlder, true);
});

test('scrolling back past the cap drops the newest and detaches from live', () => {
  const log = new ConversationLog(10);
  log.reset(range(93, 100), true);
  assert.equal(log.prepend(range(85, 92), true), 8);
  assert.equal(log.entries.length, 10);
  assert.equal(log.oldest, 85);
  assert.equal(log.newest, 94);
  assert.equal(log.detached, true);
  assert.equal(log.classify(101), 'detached');
  assert.equal(log.append([ev(95)]), 0);
  log.reset(range(91, 100), true);
  assert.equal(log.detached, false);
  assert.equal(log.classify(101), 'next');
});

test('prepend keeps only older events', () => {
  const log = new ConversationLog();
  log.reset(range(50, 60), true);
  assert.equal(log.prepend(range(45, 55), false), 5);
  assert.equal(log.oldest, 45);
  assert.equal(log.hasOlder, false);
});

test('ten thousand events never grow the log past its cap', () => {
  const log = new ConversationLog(1000);
  log.reset(range(1, 200), false);
  for (let s = 201; s <= 10000; s++) log.append([ev(s)]);
  assert.equal(log.entries.length, 1000);
  assert.equal(log.oldest, 9001);
});

test('an older page that arrives after live events trimmed the log is dropped, leaving no hole', () => {
  const log = new ConversationLog(10);
  log.reset(range(91, 100), true);
  const before = log.oldest; // 91: the page asked for is 81..90
  log.append(range(101, 105)); // meanwhile live events trim the log to 96..105
  assert.equal(log.prepend(range(81, 90), true, before), 0);
  assert.deepEqual(log.entries.map((e) => e.seq), range(96, 105).map((e) => e.seq));
  assert.equal(log.detached, false);
});
