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
