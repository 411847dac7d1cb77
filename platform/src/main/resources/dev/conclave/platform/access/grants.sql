-- Grants of access to an agent principal's agents (AgentGrants, auth.agent_grants), and owners.

-- name: Ownership
-- the principal that registered the agent, and that principal's owner (null when it has none)
SELECT a.principal_id, p.owner_id FROM gateway.agents a JOIN auth.principals p ON p.id = a.principal_id
WHERE a.agent_id = :agent_id;

-- name: Grant
-- no row when the grant already exists
INSERT INTO auth.agent_grants (agent_principal_id, grantee_id, granted_by) VALUES (:agent_principal_id, :grantee_id, :granted_by)
ON CONFLICT DO NOTHING;

-- name: Revoke
DELETE FROM auth.agent_grants WHERE agent_principal_id = :agent_principal_id AND grantee_id = :grantee_id;

-- name: List
SELECT grantee_id, granted_by, granted_at FROM auth.agent_grants
WHERE agent_principal_id = :agent_principal_id ORDER BY granted_at;
