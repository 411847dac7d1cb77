-- Principals (PrincipalStore, schema auth): people, agents and packs, with their status and roles.
-- A deleted principal keeps its row (tokens and audit refer to it), marked revoked and deleted.

-- name: Create
-- idempotent for an id: a repeat inserts nothing, and the caller reads the stored row
INSERT INTO auth.principals (id, type, display_name, status, roles, pubkey_fp, owner_id)
VALUES (:id, :type, :display_name, :status, :roles, :pubkey_fp, :owner_id)
ON CONFLICT (id) DO NOTHING;

-- name: Find
-- a principal that has not been deleted
SELECT id, type, display_name, status, roles, pubkey_fp, created_at, owner_id FROM auth.principals
WHERE id = :id AND deleted_at IS NULL;

-- name: FindByFingerprint
SELECT id, type, display_name, status, roles, pubkey_fp, created_at, owner_id FROM auth.principals
WHERE type = :type AND pubkey_fp = :pubkey_fp AND deleted_at IS NULL;

-- name: List
-- principals not deleted, oldest first; a null :type or :status matches any
SELECT id, type, display_name, status, roles, pubkey_fp, created_at, owner_id FROM auth.principals
WHERE deleted_at IS NULL
  AND (:type::text IS NULL OR type = :type)
  AND (:status::text IS NULL OR status = :status)
ORDER BY created_at, id;

-- name: SetStatus
UPDATE auth.principals SET status = :status, updated_at = now() WHERE id = :id AND deleted_at IS NULL;

-- name: Delete
-- marks the principal deleted and revoked
UPDATE auth.principals SET status = 'revoked', deleted_at = now(), updated_at = now()
WHERE id = :id AND deleted_at IS NULL;

-- name: NoLongerApproved
-- of these principals (RevocationFeed's open streams), those revoked, refused or deleted since
SELECT id FROM auth.principals WHERE id = ANY(:ids) AND (status <> 'approved' OR deleted_at IS NOT NULL);
