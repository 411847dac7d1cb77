-- Token records and the principals they belong to, as token verification reads them (TokenStore).

-- name: FindIssued
-- a token's record with its principal: read once per node the first time the token is presented
SELECT t.id AS token_id, t.principal_id, t.purpose, t.expires_at, t.revoked_at IS NOT NULL AS revoked,
       p.id, p.type, p.display_name, p.status, p.roles, p.pubkey_fp, p.created_at, p.owner_id
FROM auth.tokens t JOIN auth.principals p ON p.id = t.principal_id
WHERE t.id = :token_id;

-- name: PrincipalsByIds
-- the principals a node holds in memory, re-read as a safety net (deleted ones come back as revoked)
SELECT id, type, display_name, status, roles, pubkey_fp, created_at, owner_id FROM auth.principals
WHERE id = ANY(:ids);

-- name: Record
-- a token as issued (the token itself is never stored)
INSERT INTO auth.tokens (id, principal_id, purpose, issued_at, expires_at)
VALUES (:id, :principal_id, :purpose, :issued_at, :expires_at);

-- name: ListOf
-- a principal's tokens as listed to people, newest first
SELECT id, principal_id, purpose, issued_at, expires_at, revoked_at, last_used_at FROM auth.tokens
WHERE principal_id = :principal_id ORDER BY issued_at DESC, id;

-- name: Find
SELECT id, principal_id, purpose, issued_at, expires_at, revoked_at, last_used_at FROM auth.tokens WHERE id = :id;

-- name: Revoke
-- one token; no row when it does not exist or was already revoked
UPDATE auth.tokens SET revoked_at = now(), revoked_reason = :reason WHERE id = :id AND revoked_at IS NULL;

-- name: RevokeAllOf
-- every live token of a principal, returning their ids
UPDATE auth.tokens SET revoked_at = now(), revoked_reason = :reason
WHERE principal_id = :principal_id AND revoked_at IS NULL
RETURNING id;

-- name: RevokedSince
-- tokens revoked after :since that have not expired anyway, oldest revocation first
SELECT id, revoked_at FROM auth.tokens
WHERE revoked_at IS NOT NULL AND revoked_at > :since AND expires_at > now()
ORDER BY revoked_at;

-- name: MarkUsed
-- TokenUse's periodic write of the tokens verified since the last one
UPDATE auth.tokens SET last_used_at = now() WHERE id = ANY(:ids);
