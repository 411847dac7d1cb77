// The console's login and logout as the node's browser rules want them (docs/dashboard.md): JSON,
// to the page's own origin (a relative URL, cookies same-origin only), logout with the CSRF header.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { api } from '../src/main/resources/conclave-console/lib/api.js';

function recordFetch(status, body) {
  const calls = [];
  globalThis.fetch = async (url, init) => {
    calls.push({ url, init });
    return { ok: status < 300, status, statusText: '', text: async () => (body === undefined ? '' : JSON.stringify(body)) };
  };
  return calls;
}

test('a login is a JSON POST to the page\'s own origin', async () => {
  const calls = recordFetch(200, { principalId: 'p1', purpose: 'api' });
  await api.login('the-token');
  assert.equal(calls.length, 1);
  const { url, init } = calls[0];
  assert.equal(url, '/auth/session', 'a relative URL: the page\'s own origin');
  assert.equal(init.method, 'POST');
  assert.equal(init.headers['Content-Type'], 'application/json');
  assert.equal(init.credentials, 'same-origin');
  assert.deepEqual(JSON.parse(init.body), { token: 'the-token' });
});

test('a logout is a DELETE to the page\'s own origin with the CSRF header', async () => {
  const calls = recordFetch(204);
  await api.logout();
  const { url, init } = calls[0];
  assert.equal(url, '/auth/session');
  assert.equal(init.method, 'DELETE');
  assert.equal(init.headers['X-Conclave-Csrf'], '1');
  assert.equal(init.credentials, 'same-origin');
});
