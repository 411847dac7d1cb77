-- The bootstrap admin's credential from CONCLAVE_ADMIN_TOKEN_FILE (AdminBootstrap.ensureTokenFromFile):
-- registered once, by whichever node starts first with it; a new value revokes the one it replaces.

-- name: Lock
-- nodes starting together take turns, so that a node with a stale value never revokes a newer one
SELECT pg_advisory_xact_lock(hashtext('conclave.auth.admin_token_file'));

-- name: Find
SELECT revoked_at IS NOT NULL AS revoked, expires_at FROM auth.tokens WHERE id = :id;

-- name: Register
INSERT INTO auth.tokens (id, principal_id, purpose, issued_at, expires_at, from_file)
VALUES (:id, :principal_id, 'api', now(), :expires_at, true)
RETURNING expires_at;

-- name: RevokeReplaced
UPDATE auth.tokens SET revoked_at = now(), revoked_reason = :reason
WHERE from_file AND id <> :id AND revoked_at IS NULL
RETURNING id;
