-- The pending agent principals unknown SSH keys create (KeyPrincipals), capped in all
-- (CONCLAVE_SSH_PENDING_MAX). Pending principals an admin made (without a key) do not count.

-- name: CountPending
SELECT count(*) AS pending FROM auth.principals
WHERE type = 'agent' AND status = 'pending' AND pubkey_fp IS NOT NULL AND deleted_at IS NULL;

-- name: LockPending
-- held until the transaction ends: registrations of unknown keys, on every node, count and insert one at a time
SELECT pg_advisory_xact_lock(hashtext('conclave.auth.ssh.pending'));

-- name: InsertPending
-- nothing when the cap is reached, or when another call registered the key meanwhile (the unique fingerprint)
INSERT INTO auth.principals (id, type, display_name, status, roles, pubkey_fp)
SELECT :id::uuid, 'agent', :display_name::text, 'pending', '{}', :fingerprint::text
WHERE (SELECT count(*) FROM auth.principals
       WHERE type = 'agent' AND status = 'pending' AND pubkey_fp IS NOT NULL AND deleted_at IS NULL) < :max::bigint
ON CONFLICT DO NOTHING
RETURNING id;
