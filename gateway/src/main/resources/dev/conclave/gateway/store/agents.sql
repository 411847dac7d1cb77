-- name: Register
-- A registration: a new epoch of the agent id for the principal (AgentStore.register). The id passes to
-- another principal only with :take_over (an admin) or once its principal is deleted or no longer
-- approved; former_principal_id names that earlier principal when the id changed hands, so that the
-- agent's open followers are judged again (their access came through the former principal).
WITH prior AS (SELECT principal_id FROM gateway.agents WHERE agent_id = :agent_id)
INSERT INTO gateway.agents AS a (agent_id, principal_id, name, capabilities, features, workspaces, backend, working_dir,
                                 metadata, instance_id, lifecycle)
VALUES (:agent_id, :principal_id, :name, :capabilities, :features, :workspaces, :backend, :working_dir,
        :metadata, :instance_id, 'running')
ON CONFLICT (agent_id) DO UPDATE
  SET principal_id = EXCLUDED.principal_id, name = EXCLUDED.name, capabilities = EXCLUDED.capabilities,
      features = EXCLUDED.features, workspaces = EXCLUDED.workspaces, backend = EXCLUDED.backend,
      working_dir = EXCLUDED.working_dir, metadata = EXCLUDED.metadata, epoch = a.epoch + 1, last_seen = now()
  WHERE a.principal_id = EXCLUDED.principal_id OR :take_over
     OR NOT EXISTS (SELECT 1 FROM auth.principals p
                    WHERE p.id = a.principal_id AND p.deleted_at IS NULL AND p.status = 'approved')
RETURNING a.agent_id, a.principal_id, a.name, a.capabilities, a.features, a.metadata, a.instance_id, a.epoch, a.last_seen,
          (SELECT prior.principal_id FROM prior WHERE prior.principal_id <> a.principal_id) AS former_principal_id

-- name: Find
SELECT agent_id, principal_id, name, capabilities, features, metadata, instance_id, epoch, last_seen
FROM gateway.agents WHERE agent_id = :agent_id;

-- name: List
-- Known agents, optionally (:workspace not null) only those tagged with a workspace, ordered by id.
SELECT agent_id, principal_id, name, capabilities, features, metadata, instance_id, epoch, last_seen
FROM gateway.agents WHERE (:workspace::text IS NULL OR :workspace = ANY (workspaces)) ORDER BY agent_id;

-- name: Touch
UPDATE gateway.agents SET last_seen = now() WHERE agent_id = :agent_id;
