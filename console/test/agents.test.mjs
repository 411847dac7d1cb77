// Presence: applying events in order, ignoring late ones, filtering and searching.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { applyPresence, filterAgents, fromListing } from '../src/main/resources/conclave-console/model/agents.js';

const listing = () => new Map([
  ['a1', fromListing({ agentId: 'a1', name: 'Alpha', connected: true, node: 'n1', capabilities: ['ui'], workspaces: ['blue'] })],
  ['a2', fromListing({ agentId: 'a2', name: 'Beta', connected: false, workspaces: [] })],
]);

test('presence connects, disconnects and adds agents', () => {
  const agents = listing();
  assert.equal(applyPresence(agents, { agentId: 'a2', connected: true, node: 'n2', epoch: 4, at: '2026-01-01T00:00:00Z' }), 'updated');
  assert.equal(agents.get('a2').connected, true);
  assert.equal(agents.get('a2').node, 'n2');
  assert.equal(agents.get('a2').connectedAt, '2026-01-01T00:00:00Z');
  assert.equal(applyPresence(agents, { agentId: 'a3', connected: true, node: 'n1', epoch: 1, name: 'Gamma' }), 'added');
  assert.equal(agents.get('a3').name, 'Gamma');
  assert.equal(applyPresence(agents, { agentId: 'a2', connected: false, node: 'n2', epoch: 4, at: '2026-01-01T00:01:00Z' }), 'updated');
  assert.equal(agents.get('a2').connected, false);
  assert.equal(agents.get('a2').lastSeenAt, '2026-01-01T00:01:00Z');
});

test('an event of an older session, or a late connect of an ended one, is ignored', () => {
  const agents = listing();
  applyPresence(agents, { agentId: 'a1', connected: true, node: 'n2', epoch: 7 });
  assert.equal(applyPresence(agents, { agentId: 'a1', connected: false, node: 'n1', epoch: 6 }), 'stale');
  assert.equal(agents.get('a1').connected, true);
  applyPresence(agents, { agentId: 'a1', connected: false, node: 'n2', epoch: 7 });
  assert.equal(applyPresence(agents, { agentId: 'a1', connected: true, node: 'n2', epoch: 7 }), 'stale');
  assert.equal(applyPresence(agents, { agentId: 'a1', connected: true, node: 'n3', epoch: 8 }), 'updated');
  assert.equal(agents.get('a1').node, 'n3');
});

test('filter and search; connected first, then by name', () => {
  const agents = listing();
  assert.deepEqual(filterAgents(agents, 'all', '').map((a) => a.id), ['a1', 'a2']);
  assert.deepEqual(filterAgents(agents, 'connected', '').map((a) => a.id), ['a1']);
  assert.deepEqual(filterAgents(agents, 'offline', '').map((a) => a.id), ['a2']);
  assert.deepEqual(filterAgents(agents, 'all', 'BLUE').map((a) => a.id), ['a1']);
  assert.deepEqual(filterAgents(agents, 'all', 'bet').map((a) => a.id), ['a2']);
  assert.deepEqual(filterAgents(agents, 'offline', 'alpha'), []);
});

test('a thousand agents filter quickly', () => {
  const agents = new Map();
  for (let i = 0; i < 1000; i++) agents.set(`x${i}`, fromListing({ agentId: `x${i}`, name: `Agent ${i}`, connected: i % 2 === 0 }));
  const t = Date.now();
  for (let k = 0; k < 50; k++) filterAgents(agents, 'connected', 'agent 9');
  assert.ok(Date.now() - t < 1000);
  assert.equal(filterAgents(agents, 'connected', 'agent 99').length, 5); // 990, 992 … 998
});
