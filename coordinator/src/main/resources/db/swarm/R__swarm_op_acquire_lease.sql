-- Repeatable migration (Flyway R__): the swarm operation ACQUIRE_LEASE, its checks and its effect. Flyway runs this file again
-- whenever it changes, after the versioned migrations (tables, indexes) in this directory; edit the
-- function here instead of adding a versioned migration. CREATE OR REPLACE keeps a function's
-- signature: to change its arguments or return type, DROP it first in this file.
-- Function bodies are checked when called, not here, so the files may run in any order.
SET LOCAL check_function_bodies = off;

-- Swarm coordinator: ACQUIRE_LEASE.
--
-- A lease is granted when the file is free, extended when the holder asks again, taken over once it
-- has expired, and refused (with heldBy/heldUntil) while another agent holds it; that refusal comes
-- first, whatever else is wrong with the request (an unregistered agent, a task it does not hold,
-- a bad durationMs). Durations are capped
-- at one hour. A lease belongs to a task the agent holds; completing or failing the task releases it.

-- ACQUIRE_LEASE's first checks, which swarm.dispatch runs before the signed-agent check and the rate limit:
-- the ids' format and the path's length (swarm.dispatch defers the answer when the path is usable:
-- see swarm.op_acquire_lease). The error of the first member that breaks one, or NULL.
-- JSON types, required members and enumerations are checked after them, by the operation itself.
CREATE OR REPLACE FUNCTION swarm.check_acquire_lease(p_req jsonb, p_options jsonb DEFAULT '{}'::jsonb)
RETURNS jsonb LANGUAGE sql STABLE AS $$
  SELECT coalesce(
    swarm._c_id(p_req, 'agentId', 'agentId'),
    swarm._c_id(p_req, 'taskId', 'taskId'),
    swarm._c_sized(p_req, 'filePath', 'filePath', 1024))
$$;

CREATE OR REPLACE FUNCTION swarm.op_acquire_lease(p_req jsonb, p_now timestamptz, p_principal uuid, p_admin boolean)
RETURNS jsonb LANGUAGE plpgsql AS $$
DECLARE
  v_path text := swarm._req_str(p_req, 'filePath', 'filePath');
  v_agent_id text;
  v_task_id text;
  v_duration bigint;
  v_expires timestamptz;
  v_event text;
  v_previous text;
  v_err jsonb;
  a swarm.agents;
  t swarm.tasks;
  l swarm.leases;
BEGIN
  -- seed 001's first rule, before anything else about the request is checked: a file another agent
  -- holds, unexpired, is refused with who holds it and until when (an agentId that is missing or
  -- not a string is "another agent")
  SELECT * INTO l FROM swarm.leases WHERE file_path = v_path;
  IF FOUND AND l.expires_at > p_now
     AND l.agent_id IS DISTINCT FROM (CASE WHEN jsonb_typeof(p_req -> 'agentId') = 'string' THEN p_req ->> 'agentId' END) THEN
    RETURN swarm._ok(jsonb_build_object('success', false, 'heldBy', l.agent_id, 'heldUntil', swarm._iso(l.expires_at)));
  END IF;
  -- a request the coordinator found invalid comes with its problem, answered only now
  IF jsonb_typeof(p_req -> 'deferredError') = 'object' THEN
    RETURN jsonb_build_object('error', p_req -> 'deferredError');
  END IF;
  v_agent_id := swarm._req_str(p_req, 'agentId', 'agentId');
  v_task_id := swarm._req_str(p_req, 'taskId', 'taskId');
  v_duration := swarm._int(p_req, 'durationMs', 'durationMs');
  IF v_duration IS NULL OR v_duration < 1 THEN
    PERFORM swarm._invalid('durationMs', 'must be a positive number of milliseconds');
  END IF;
  v_expires := p_now + least(v_duration, (extract(epoch FROM swarm.max_lease()) * 1000)::bigint) * interval '1 millisecond';

  SELECT * INTO a FROM swarm.agents WHERE id = v_agent_id FOR NO KEY UPDATE;
  v_err := swarm._agent_error(a, v_agent_id, p_principal, p_admin);
  IF v_err IS NOT NULL THEN
    RETURN v_err;
  END IF;
  SELECT * INTO t FROM swarm.tasks WHERE id = v_task_id;
  v_err := swarm._reportable(t, v_task_id, v_agent_id);
  IF v_err IS NOT NULL THEN
    RETURN v_err;
  END IF;

  FOR attempt IN 1..2 LOOP
    SELECT * INTO l FROM swarm.leases WHERE file_path = v_path FOR UPDATE;
    IF NOT FOUND THEN
      INSERT INTO swarm.leases (file_path, agent_id, task_id, acquired_at, expires_at)
      VALUES (v_path, v_agent_id, v_task_id, p_now, v_expires)
      ON CONFLICT (file_path) DO NOTHING;
      IF FOUND THEN
        v_event := 'acquired';
        EXIT;
      END IF;
      -- another agent inserted it a moment ago: look again, now that its row is there
      CONTINUE;
    END IF;
    IF l.agent_id = v_agent_id AND l.expires_at > p_now THEN
      v_expires := greatest(l.expires_at, v_expires);
      UPDATE swarm.leases SET expires_at = v_expires, task_id = v_task_id, renewed_count = renewed_count + 1
       WHERE file_path = v_path;
      v_event := 'extended';
    ELSIF l.expires_at <= p_now THEN
      -- expired: the previous holder is presumed dead
      UPDATE swarm.leases SET agent_id = v_agent_id, task_id = v_task_id, acquired_at = p_now,
                              expires_at = v_expires, renewed_count = 0
       WHERE file_path = v_path;
      v_event := CASE WHEN l.agent_id = v_agent_id THEN 'acquired' ELSE 'taken_over' END;
      v_previous := CASE WHEN l.agent_id <> v_agent_id THEN l.agent_id END;
    ELSE
      RETURN swarm._ok(jsonb_build_object('success', false, 'heldBy', l.agent_id,
                                          'heldUntil', swarm._iso(l.expires_at)));
    END IF;
    EXIT;
  END LOOP;
  IF v_event IS NULL THEN
    -- the row appeared and vanished again between two looks; report it as held and let the agent retry
    RETURN swarm._err('lease_contended', 'conflict', format('lease on %s is changing hands; retry', v_path));
  END IF;
  PERFORM swarm._emit('lease', v_event, v_path, p_now, jsonb_build_object(
    'agentId', v_agent_id, 'taskId', v_task_id, 'expiresAt', swarm._iso(v_expires), 'previousAgent', v_previous));
  RETURN swarm._ok(jsonb_build_object('success', true,
                                      'lease', jsonb_build_object('filePath', v_path, 'expiresAt', swarm._iso(v_expires))));
END $$;
