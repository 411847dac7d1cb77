-- Secrets (SecretStore, schema auth): sealed values only, never plaintext, and the key check value.
-- Every statement is idempotent under retry.

-- name: LockScope
-- serializes the writers of one scope (:scope_key names it) until the transaction ends, so that the
-- scope's limits hold under concurrent writes
SELECT pg_advisory_xact_lock(hashtextextended(:scope_key, 0));

-- name: ScopeUsage
-- the other secrets of the scope: how many, and the bytes of their names and values (a sealed value
-- is its ciphertext less the :tag_bytes of its authentication tag)
SELECT count(*)::int AS n,
       coalesce(sum(octet_length(name) + octet_length(ciphertext) - :tag_bytes), 0)::bigint AS bytes
FROM auth.secrets WHERE scope = :scope AND agent_id = :agent_id AND name <> :name;

-- name: Upsert
-- inserts or replaces the secret, returning its metadata
INSERT INTO auth.secrets (scope, agent_id, name, nonce, ciphertext, updated_at, updated_by)
VALUES (:scope, :agent_id, :name, :nonce, :ciphertext, now(), :updated_by)
ON CONFLICT (scope, agent_id, name) DO UPDATE
SET nonce = EXCLUDED.nonce, ciphertext = EXCLUDED.ciphertext, updated_at = now(), updated_by = EXCLUDED.updated_by
RETURNING updated_at, updated_by;

-- name: Delete
DELETE FROM auth.secrets WHERE scope = :scope AND agent_id = :agent_id AND name = :name;

-- name: List
-- every secret's metadata (no values): global ones first, then by agent id and name, byte order
SELECT scope, agent_id, name, updated_at, updated_by FROM auth.secrets
ORDER BY scope = 'agent', agent_id COLLATE "C", name COLLATE "C";

-- name: SealedFor
-- the sealed global secrets and those of one agent
SELECT scope, agent_id, name, nonce, ciphertext FROM auth.secrets
WHERE (scope = 'global' AND agent_id = '') OR (scope = 'agent' AND agent_id = :agent_id);

-- name: OfferKeyCheck
-- stores the candidate key check value unless one exists
INSERT INTO auth.secrets_key_check (id, nonce, ciphertext) VALUES (true, :nonce, :ciphertext)
ON CONFLICT (id) DO NOTHING;

-- name: KeyCheck
-- the key check value stored (the table holds at most the one row whose id is true)
SELECT nonce, ciphertext FROM auth.secrets_key_check WHERE id;
