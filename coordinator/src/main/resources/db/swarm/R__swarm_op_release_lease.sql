-- Repeatable migration (Flyway R__): the swarm operation RELEASE_LEASE, its checks and its effect. Flyway runs this file again
-- whenever it changes, after the versioned migrations (tables, indexes) in this directory; edit the
-- function here instead of adding a versioned migration. CREATE OR REPLACE keeps a function's
-- signature: to change its arguments or return type, DROP it first in this file.
-- Function bodies are checked when called, not here, so the files may run in any order.
SET LOCAL check_function_bodies = off;

-- Swarm coordinator: RELEASE_LEASE. The holder releases a lease before it expires.

-- RELEASE_LEASE's first checks, which swarm.dispatch runs before the signed-agent check and the rate limit:
-- the agentId's format and the path's length. The error of the first member that breaks one, or NULL.
-- JSON types, required members and enumerations are checked after them, by the operation itself.
CREATE OR REPLACE FUNCTION swarm.check_release_lease(p_req jsonb, p_options jsonb DEFAULT '{}'::jsonb)
RETURNS jsonb LANGUAGE sql STABLE AS $$
  SELECT coalesce(
    swarm._c_id(p_req, 'agentId', 'agentId'),
    swarm._c_sized(p_req, 'filePath', 'filePath', 1024))
$$;

CREATE OR REPLACE FUNCTION swarm.op_release_lease(p_req jsonb, p_now timestamptz, p_principal uuid, p_admin boolean)
RETURNS jsonb LANGUAGE plpgsql AS $$
DECLARE
  v_agent_id text := swarm._req_str(p_req, 'agentId', 'agentId');
  v_path text := swarm._req_str(p_req, 'filePath', 'filePath');
  v_err jsonb;
  a swarm.agents;
  l swarm.leases;
BEGIN
  SELECT * INTO a FROM swarm.agents WHERE id = v_agent_id FOR NO KEY UPDATE;
  v_err := swarm._agent_error(a, v_agent_id, p_principal, p_admin);
  IF v_err IS NOT NULL THEN
    RETURN v_err;
  END IF;
  SELECT * INTO l FROM swarm.leases WHERE file_path = v_path FOR UPDATE;
  IF NOT FOUND THEN
    -- nothing held: releasing is idempotent
    RETURN swarm._ok(jsonb_build_object('success', true, 'released', false));
  END IF;
  IF l.agent_id <> v_agent_id THEN
    RETURN swarm._err('lease_not_owned', 'forbidden', format('the lease on %s belongs to agent %s', v_path, l.agent_id),
                      jsonb_build_object('heldBy', l.agent_id, 'heldUntil', swarm._iso(l.expires_at)));
  END IF;
  DELETE FROM swarm.leases WHERE file_path = v_path;
  PERFORM swarm._emit('lease', 'released', v_path, p_now,
                      jsonb_build_object('agentId', v_agent_id, 'taskId', l.task_id, 'reason', 'released'));
  RETURN swarm._ok(jsonb_build_object('success', true, 'released', true));
END $$;
