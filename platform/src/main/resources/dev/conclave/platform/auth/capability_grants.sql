-- Capabilities granted to principals (auth.principal_capabilities), owned by CapabilityGrants.

-- name: Grant
INSERT INTO auth.principal_capabilities (principal_id, capability, granted_by)
VALUES (:principal_id, :capability, :granted_by)
ON CONFLICT (principal_id, capability) DO NOTHING;

-- name: Revoke
DELETE FROM auth.principal_capabilities WHERE principal_id = :principal_id AND capability = :capability;

-- name: List
SELECT capability, granted_by, granted_at FROM auth.principal_capabilities
WHERE principal_id = :principal_id ORDER BY capability;
