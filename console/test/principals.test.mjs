// What an admin reads before approving a principal: its key's fingerprint as OpenSSH prints it, its
// owner by name, pending ones first.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { opensshFingerprint, ownerLabel, sortPrincipals } from '../src/main/resources/conclave-console/model/principals.js';

test('a hex SHA-256 fingerprint reads as ssh-keygen -l prints it', () => {
  // ssh-keygen -lf of an ed25519 key whose blob hashes (sha256sum) to the hex below
  assert.equal(opensshFingerprint('3e45f3247acea4de878afbff7702c8784fd3b5d5bc527373d6e69cc2dae1f3e5'),
    'SHA256:PkXzJHrOpN6Hivv/dwLIeE/TtdW8UnNz1uacwtrh8+U');
  assert.equal(opensshFingerprint('3E45F3247ACEA4DE878AFBFF7702C8784FD3B5D5BC527373D6E69CC2DAE1F3E5'),
    'SHA256:PkXzJHrOpN6Hivv/dwLIeE/TtdW8UnNz1uacwtrh8+U');
  for (const other of [undefined, null, '', 'abc', 'z'.repeat(64), '3e45'.repeat(17)]) {
    assert.equal(opensshFingerprint(other), null, String(other));
  }
});

test('an owner is shown by name: the one the server gave, else the listed principal, else its id', () => {
  const listed = new Map([['u-2', { principalId: 'u-2', displayName: 'Dana Scully' }]]);
  assert.deepEqual(ownerLabel({ ownerId: 'u-1', ownerName: 'Fox Mulder' }, listed), { name: 'Fox Mulder', id: 'u-1' });
  assert.deepEqual(ownerLabel({ ownerId: 'u-2' }, listed), { name: 'Dana Scully', id: 'u-2' });
  assert.deepEqual(ownerLabel({ ownerId: 'u-3' }, listed), { name: null, id: 'u-3' });
  assert.equal(ownerLabel({}, listed), null);
});

test('pending principals come first, then by name', () => {
  const sorted = sortPrincipals([
    { principalId: '1', status: 'approved', displayName: 'b' },
    { principalId: '2', status: 'pending', displayName: 'z' },
    { principalId: '3', status: 'approved', displayName: 'a' },
    { principalId: '4', status: 'pending', displayName: 'c' },
  ]);
  assert.deepEqual(sorted.map((p) => p.principalId), ['4', '2', '3', '1']);
});
