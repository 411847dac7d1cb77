-- Repeatable migration (Flyway R__): the swarm operation HEARTBEAT, its checks and its effect. Flyway runs this file again
-- whenever it changes, after the versioned migrations (tables, indexes) in this directory; edit the
-- function here instead of adding a versioned migration. CREATE OR REPLACE keeps a function's
-- signature: to change its arguments or return type, DROP it first in this file.
-- Function bodies are checked when called, not here, so the files may run in any order.
SET LOCAL check_function_bodies = off;

-- Swarm coordinator: HEARTBEAT. Keeps an agent active and hands it the commands queued for it
-- (swarm.queue_command).

-- HEARTBEAT's first checks, which swarm.dispatch runs before the signed-agent check and the rate limit:
-- the ids' format and the ranges of the progress and the metrics. The error of the first member that breaks one, or NULL.
-- JSON types, required members and enumerations are checked after them, by the operation itself.
CREATE OR REPLACE FUNCTION swarm.check_heartbeat(p_req jsonb, p_options jsonb DEFAULT '{}'::jsonb)
RETURNS jsonb LANGUAGE sql STABLE AS $$
  SELECT coalesce(
    swarm._c_id(p_req, 'agentId', 'agentId'),
    swarm._c_id(p_req -> 'currentTask', 'id', 'currentTask.id'),
    swarm._c_within(p_req -> 'currentTask', 'progress', 'currentTask.progress', 0, 100),
    swarm._c_within(p_req -> 'metrics', 'memoryUsedMB', 'metrics.memoryUsedMB', 0, 1000000000),
    swarm._c_within(p_req -> 'metrics', 'tasksCompletedSession', 'metrics.tasksCompletedSession', 0, 100000000))
$$;

CREATE OR REPLACE FUNCTION swarm.op_heartbeat(p_req jsonb, p_now timestamptz, p_principal uuid, p_admin boolean)
RETURNS jsonb LANGUAGE plpgsql AS $$
DECLARE
  v_agent_id text := swarm._req_str(p_req, 'agentId', 'agentId');
  v_status text := swarm._enum(p_req, 'status', 'status', ARRAY['idle', 'busy', 'error']);
  v_current jsonb := swarm._obj(p_req, 'currentTask', 'currentTask');
  v_metrics jsonb := swarm._obj(p_req, 'metrics', 'metrics');
  v_task_id text;
  v_progress jsonb;
  v_commands jsonb;
  v_err jsonb;
  a swarm.agents;
BEGIN
  IF v_status IS NULL THEN
    PERFORM swarm._invalid('status', 'is required');
  END IF;
  IF v_metrics IS NOT NULL THEN
    PERFORM swarm._num(v_metrics, 'memoryUsedMB', 'metrics.memoryUsedMB'),
            swarm._int(v_metrics, 'tasksCompletedSession', 'metrics.tasksCompletedSession');
    -- stored as the protocol has it: other members, and those sent as null, are left out
    v_metrics := jsonb_strip_nulls(jsonb_build_object('memoryUsedMB', v_metrics -> 'memoryUsedMB',
                                                      'tasksCompletedSession', v_metrics -> 'tasksCompletedSession'));
  END IF;
  IF v_current IS NOT NULL THEN
    v_task_id := swarm._req_str(v_current, 'id', 'currentTask.id');
    v_progress := jsonb_strip_nulls(jsonb_build_object(
      'percentComplete', swarm._num(v_current, 'progress', 'currentTask.progress'),
      'phase', swarm._enum(v_current, 'phase', 'currentTask.phase',
                           ARRAY['analyzing', 'planning', 'implementing', 'testing', 'reviewing']),
      'updatedAt', swarm._iso(p_now)));
  END IF;
  SELECT * INTO a FROM swarm.agents WHERE id = v_agent_id FOR NO KEY UPDATE;
  v_err := swarm._agent_error(a, v_agent_id, p_principal, p_admin);
  IF v_err IS NOT NULL THEN
    RETURN v_err;
  END IF;
  UPDATE swarm.agents SET status = v_status, last_heartbeat = p_now, heartbeat_count = heartbeat_count + 1,
                          metrics = coalesce(v_metrics, metrics),
                          current_task = CASE WHEN v_current IS NOT NULL THEN v_task_id ELSE current_task END
   WHERE id = v_agent_id;
  IF v_task_id IS NOT NULL THEN
    -- progress counts only for a task this agent holds
    UPDATE swarm.tasks SET status = 'in_progress', started_at = coalesce(started_at, p_now),
                           progress = coalesce(progress, '{}'::jsonb) || v_progress, updated_at = p_now
     WHERE id = v_task_id AND assigned_agent = v_agent_id AND status IN ('claimed', 'in_progress');
  END IF;
  -- queued operator commands go out exactly once
  WITH taken AS (DELETE FROM swarm.agent_commands WHERE agent_id = v_agent_id RETURNING id, command)
  SELECT coalesce(jsonb_agg(command ORDER BY id), '[]'::jsonb) INTO v_commands FROM taken;
  PERFORM swarm._emit('agent', 'heartbeat', v_agent_id, p_now, jsonb_build_object(
    'status', v_status, 'previousStatus', a.status, 'currentTask', v_task_id,
    'commandsDelivered', jsonb_array_length(v_commands)));
  RETURN swarm._ok(jsonb_build_object('success', true, 'timestamp', swarm._iso(p_now), 'commands', v_commands));
END $$;
