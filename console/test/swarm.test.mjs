// The task board: where events move cards, when to read a task, the forms' bodies.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { STATUSES, applyTaskEvent, columns, commandFromForm, statusAfter, taskFromForm, taskOfConversation } from '../src/main/resources/conclave-console/model/swarm.js';

const board = () => new Map([['t1', { id: 't1', title: 'T', status: 'ready', priority: 'high', updatedAt: '2026-01-01T10:00:00.000Z' }]]);
const ev = (event, data = {}, at = '2026-01-01T10:01:00.000Z', id = 't1') => ({ kind: 'task', event, id, at, seq: 1, data });

test('every documented status has a column', () => {
  assert.deepEqual([...STATUSES].sort(), ['blocked', 'cancelled', 'claimed', 'completed', 'failed', 'in_progress', 'needs_review', 'pending_retry', 'ready']);
});

test('task events move the task', () => {
  assert.equal(statusAfter(ev('created', { status: 'blocked' })), 'blocked');
  assert.equal(statusAfter(ev('failed', { status: 'pending_retry' })), 'pending_retry');
  assert.equal(statusAfter(ev('failed', {})), null);
  assert.equal(statusAfter(ev('unblocked')), 'ready');
  assert.equal(statusAfter(ev('retried', { status: 'ready', previousStatus: 'failed' })), 'ready');
  assert.equal(statusAfter(ev('retried', { status: 'blocked' })), 'blocked');
  assert.equal(statusAfter(ev('reprioritized', { priority: 'high' })), null);
  const tasks = board();
  assert.equal(applyTaskEvent(tasks, ev('claimed', { agentId: 'a' })), 'updated');
  assert.equal(tasks.get('t1').status, 'claimed');
  assert.equal(tasks.get('t1').assignedAgent, 'a');
  applyTaskEvent(tasks, ev('progress', { agentId: 'a', phase: 'testing', percentComplete: 40 }, '2026-01-01T10:02:00.000Z'));
  assert.equal(tasks.get('t1').status, 'in_progress');
  assert.equal(tasks.get('t1').progress.percentComplete, 40);
  applyTaskEvent(tasks, ev('failed', { status: 'pending_retry', retryCount: 1, message: 'boom', nextRetryAt: 'x' }, '2026-01-01T10:03:00.000Z'));
  assert.equal(tasks.get('t1').status, 'pending_retry');
  assert.equal(tasks.get('t1').retryCount, 1);
  assert.equal(tasks.get('t1').lastError, 'boom');
});

test('unknown tasks and unclear events are read; older events change nothing', () => {
  const tasks = board();
  assert.equal(applyTaskEvent(tasks, ev('created', { status: 'ready' }, undefined, 'new')), 'fetch');
  assert.equal(applyTaskEvent(tasks, ev('failed', {})), 'fetch');
  assert.equal(applyTaskEvent(tasks, ev('claimed', {}, '2026-01-01T09:00:00.000Z')), 'stale');
  assert.equal(tasks.get('t1').status, 'ready');
  assert.equal(applyTaskEvent(tasks, { kind: 'lease', event: 'acquired', id: 'x' }), 'ignored');
});

test('columns sort unfinished work by priority and finished work newest first', () => {
  const tasks = new Map([
    ['a', { id: 'a', status: 'ready', priority: 'low', createdAt: '1' }],
    ['b', { id: 'b', status: 'ready', priority: 'critical', createdAt: '2' }],
    ['c', { id: 'c', status: 'completed', updatedAt: '2026-01-01' }],
    ['d', { id: 'd', status: 'completed', updatedAt: '2026-02-01' }],
  ]);
  const cols = columns(tasks);
  assert.deepEqual(cols.ready.map((t) => t.id), ['b', 'a']);
  assert.deepEqual(cols.completed.map((t) => t.id), ['d', 'c']);
  assert.deepEqual(cols.failed, []);
});

test('the forms build the documented bodies', () => {
  assert.deepEqual(taskFromForm({ title: ' Add login ', priority: 'high', type: 'code', requiredSkills: 'react, ts', dependencies: '', estimatedMinutes: '30', maxRetries: '' }),
    { title: 'Add login', priority: 'high', type: 'code', requiredSkills: ['react', 'ts'], estimatedMinutes: 30 });
  assert.deepEqual(commandFromForm({ type: 'RELEASE_TASK', taskId: ' t-1 ', reason: 'rebalance' }), { type: 'RELEASE_TASK', taskId: 't-1', reason: 'rebalance' });
  assert.deepEqual(commandFromForm({ type: 'PING', reason: 'x' }), { type: 'PING' });
});

test('a task worked as a conversation links to it, and a swarm conversation names its task', () => {
  const tasks = board();
  assert.equal(applyTaskEvent(tasks, ev('conversation', { agentId: 'a', conversationKey: 'swarm:t1' })), 'updated');
  assert.equal(tasks.get('t1').conversationKey, 'swarm:t1');
  assert.equal(tasks.get('t1').status, 'ready');
  assert.equal(applyTaskEvent(new Map(), ev('conversation', { conversationKey: 'swarm:t1' })), 'fetch');
  assert.equal(taskOfConversation('swarm:t-42'), 't-42');
  assert.equal(taskOfConversation('swarm:'), null);
  assert.equal(taskOfConversation('agent-1'), null);
  assert.equal(taskOfConversation('slack:swarm:x'), null);
});

test('a bulk action on the selected tasks, or on a whole column', async () => {
  const { bulkBody, bulkAppliesTo, bulkOutcome, MAX_SELECTED } = await import('../src/main/resources/conclave-console/model/swarm.js');
  assert.deepEqual(bulkBody('retry', { ids: ['b', 'a'] }), { action: 'retry', filter: { ids: ['a', 'b'] } });
  assert.deepEqual(bulkBody('cancel', { status: 'ready' }), { action: 'cancel', filter: { status: ['ready'] } });
  assert.deepEqual(bulkBody('reprioritize', { ids: ['a'] }, 'critical'),
    { action: 'reprioritize', filter: { ids: ['a'] }, priority: 'critical' });
  assert.throws(() => bulkBody('reprioritize', { ids: ['a'] }), /priority/);
  assert.throws(() => bulkBody('retry', { ids: [] }), /no task/);
  assert.throws(() => bulkBody('explode', { ids: ['a'] }), /action/);
  assert.equal(MAX_SELECTED, 1000);
  assert.throws(() => bulkBody('retry', { ids: Array.from({ length: 1001 }, (_, i) => `t${i}`) }), /1000/);

  assert.equal(bulkAppliesTo('retry', 'failed'), true);
  assert.equal(bulkAppliesTo('retry', 'cancelled'), true);
  assert.equal(bulkAppliesTo('retry', 'ready'), false);
  assert.equal(bulkAppliesTo('cancel', 'ready'), true);
  assert.equal(bulkAppliesTo('cancel', 'completed'), false);
  assert.equal(bulkAppliesTo('reprioritize', 'in_progress'), true);

  assert.equal(bulkOutcome({ action: 'retry', matched: 3, changed: 2 }), 'Retried 2 of 3 matched tasks.');
  assert.equal(bulkOutcome({ action: 'cancel', matched: 1, changed: 1 }), 'Cancelled 1 of 1 matched task.');
  assert.equal(bulkOutcome({ action: 'reprioritize', matched: 0, changed: 0 }), 'Re-prioritised 0 of 0 matched tasks.');
});
