-- The nonces of accepted SSH-signed calls (NonceStore, auth.ssh_nonces): each used once per key.

-- name: Use
-- the primary key makes the first insert win; every later one inserts nothing
INSERT INTO auth.ssh_nonces (fingerprint, nonce, signed_at) VALUES (:fingerprint, :nonce, :signed_at)
ON CONFLICT (fingerprint, nonce) DO NOTHING;

-- name: DeleteSignedBefore
-- up to :limit rows signed before :cutoff, a bounded batch that any number of nodes may run at once
DELETE FROM auth.ssh_nonces WHERE (fingerprint, nonce) IN
  (SELECT fingerprint, nonce FROM auth.ssh_nonces WHERE signed_at < :cutoff LIMIT :limit);
