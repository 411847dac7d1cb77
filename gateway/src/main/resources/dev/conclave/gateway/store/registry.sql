-- The registry's view of gateway.agents: lifecycle state, classification, parent (RegistryStore).

-- name: Define
-- A new registry entry (RegisterAgent before any stream); no row is written when the id exists.
INSERT INTO gateway.agents (agent_id, principal_id, name, capabilities, instance_id, lifecycle, classification,
                            primary_type, domain, capability, role, lifecycle_class, security, parent_id)
VALUES (:agent_id, :principal_id, :name, :capabilities, :instance_id, :lifecycle, :classification,
        :primary_type, :domain, :capability, :role, :lifecycle_class, :security, :parent_id)
ON CONFLICT (agent_id) DO NOTHING;

-- name: Find
SELECT agent_id, principal_id, name, capabilities, lifecycle, lifecycle_since, classification, parent_id, last_seen
FROM gateway.agents WHERE agent_id = :agent_id;

-- name: LockState
-- The agent's state, locked for the rest of the caller's transaction.
SELECT lifecycle FROM gateway.agents WHERE agent_id = :agent_id FOR UPDATE;

-- name: SetState
UPDATE gateway.agents SET lifecycle = :lifecycle, lifecycle_since = now() WHERE agent_id = :agent_id;

-- name: Query
-- The entries matching every field given (a null field, or no capabilities, matches all), ordered
-- by id, at most 500 (RegistryStore.MAX_RESULTS).
SELECT agent_id, principal_id, name, capabilities, lifecycle, lifecycle_since, classification, parent_id, last_seen
FROM gateway.agents
WHERE (:primary_type::text IS NULL OR lower(primary_type) = lower(:primary_type))
  AND (:domain::text IS NULL OR lower(domain) = lower(:domain))
  AND (cardinality(:capabilities::text[]) = 0 OR (capabilities || coalesce(ARRAY[capability], '{}'::text[])) @> :capabilities::text[])
  AND (:role::text IS NULL OR lower(role) = lower(:role))
  AND (:lifecycle::text IS NULL OR lifecycle = :lifecycle)
  AND (:security::text IS NULL OR lower(security) = lower(:security))
  AND (:parent_id::text IS NULL OR parent_id = :parent_id)
ORDER BY agent_id LIMIT 500;
