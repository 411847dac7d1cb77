-- Who an agent acts as when it runs an admin built-in tool (ActingOwner).

-- name: ActingAs
-- the agent's principal, whether it holds the capability's grant now, and its owner (if any) as of now
SELECT a.principal_id AS agent_principal_id,
       (ap.status = 'approved' AND ap.deleted_at IS NULL) AS agent_principal_active,
       EXISTS (SELECT 1 FROM auth.principal_capabilities c
               WHERE c.principal_id = a.principal_id AND c.capability = :capability) AS granted,
       o.id AS owner_id, o.type AS owner_type, o.roles AS owner_roles,
       (o.status = 'approved' AND o.deleted_at IS NULL) AS owner_active
FROM gateway.agents a
JOIN auth.principals ap ON ap.id = a.principal_id
LEFT JOIN auth.principals o ON o.id = ap.owner_id
WHERE a.agent_id = :agent_id;
