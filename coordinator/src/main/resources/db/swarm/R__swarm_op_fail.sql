-- Repeatable migration (Flyway R__): the swarm operation FAIL, its checks and its effect. Flyway runs this file again
-- whenever it changes, after the versioned migrations (tables, indexes) in this directory; edit the
-- function here instead of adding a versioned migration. CREATE OR REPLACE keeps a function's
-- signature: to change its arguments or return type, DROP it first in this file.
-- Function bodies are checked when called, not here, so the files may run in any order.
SET LOCAL check_function_bodies = off;

-- Swarm coordinator: FAIL. The agent holding a task gives it up; the retry rules are swarm._fail_task's
-- (R__swarm_support.sql), which a crashed agent and a rejected review share.

-- FAIL's first checks, which swarm.dispatch runs before the signed-agent check and the rate limit:
-- the ids' format and the failure's text sizes. The error of the first member that breaks one, or NULL.
-- JSON types, required members and enumerations are checked after them, by the operation itself.
CREATE OR REPLACE FUNCTION swarm.check_fail(p_req jsonb, p_options jsonb DEFAULT '{}'::jsonb)
RETURNS jsonb LANGUAGE sql STABLE AS $$
  SELECT coalesce(
    swarm._c_id(p_req, 'agentId', 'agentId'),
    swarm._c_id(p_req, 'taskId', 'taskId'),
    swarm._c_sized(p_req -> 'failure', 'message', 'failure.message', 4000),
    swarm._c_sized(p_req -> 'failure', 'details', 'failure.details', 100000),
    swarm._c_sized(p_req -> 'failure', 'suggestedAction', 'failure.suggestedAction', 2000))
$$;

CREATE OR REPLACE FUNCTION swarm.op_fail(p_req jsonb, p_now timestamptz, p_principal uuid, p_admin boolean)
RETURNS jsonb LANGUAGE plpgsql AS $$
DECLARE
  v_agent_id text := swarm._req_str(p_req, 'agentId', 'agentId');
  v_task_id text := swarm._req_str(p_req, 'taskId', 'taskId');
  v_failure jsonb := swarm._obj(p_req, 'failure', 'failure');
  v_clean jsonb;
  v_response jsonb;
  v_err jsonb;
  a swarm.agents;
  t swarm.tasks;
BEGIN
  IF v_failure IS NULL THEN
    PERFORM swarm._invalid('failure', 'is required');
  END IF;
  PERFORM swarm._required(v_failure, 'type', 'failure.type');
  IF swarm._bool(v_failure, 'recoverable', 'failure.recoverable') IS NULL THEN
    PERFORM swarm._invalid('failure.recoverable', 'is required');
  END IF;
  v_clean := jsonb_strip_nulls(jsonb_build_object(
    'type', swarm._enum(v_failure, 'type', 'failure.type', ARRAY['task_error', 'task_timeout',
              'dependency_error', 'quality_failure', 'resource_error', 'agent_crash']),
    'message', swarm._req_str(v_failure, 'message', 'failure.message'),
    'details', swarm._str(v_failure, 'details', 'failure.details'),
    'recoverable', swarm._bool(v_failure, 'recoverable', 'failure.recoverable'),
    'suggestedAction', swarm._str(v_failure, 'suggestedAction', 'failure.suggestedAction')));

  SELECT * INTO a FROM swarm.agents WHERE id = v_agent_id FOR NO KEY UPDATE;
  v_err := swarm._agent_error(a, v_agent_id, p_principal, p_admin);
  IF v_err IS NOT NULL THEN
    RETURN v_err;
  END IF;
  SELECT * INTO t FROM swarm.tasks WHERE id = v_task_id FOR UPDATE;
  -- a repeated FAIL gets the first answer again, with the time now left until the retry
  IF t.assigned_agent IS NULL AND t.status IN ('pending_retry', 'failed')
     AND t.last_failure ->> 'agentId' = v_agent_id THEN
    RETURN swarm._ok((t.last_failure -> 'response') || CASE WHEN t.status = 'pending_retry' THEN
      jsonb_build_object('retryAfter', greatest(0, floor(extract(epoch FROM t.next_retry_at - p_now) * 1000))::bigint)
      ELSE '{}'::jsonb END);
  END IF;
  v_err := swarm._reportable(t, v_task_id, v_agent_id);
  IF v_err IS NOT NULL THEN
    RETURN v_err;
  END IF;

  v_response := swarm._fail_task(t, v_agent_id, v_clean, p_now);
  UPDATE swarm.agents
     SET status = CASE WHEN current_task = v_task_id THEN 'idle' ELSE status END,
         current_task = CASE WHEN current_task = v_task_id THEN NULL ELSE current_task END,
         tasks_failed = tasks_failed + 1
   WHERE id = v_agent_id;
  RETURN swarm._ok(v_response);
END $$;
