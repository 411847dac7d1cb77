-- Repeatable migration (Flyway R__): the swarm operation PROGRESS, its checks and its effect. Flyway runs this file again
-- whenever it changes, after the versioned migrations (tables, indexes) in this directory; edit the
-- function here instead of adding a versioned migration. CREATE OR REPLACE keeps a function's
-- signature: to change its arguments or return type, DROP it first in this file.
-- Function bodies are checked when called, not here, so the files may run in any order.
SET LOCAL check_function_bodies = off;

-- Swarm coordinator: PROGRESS. The agent holding a task reports how far it is; the first report moves
-- a claimed task to in_progress.

-- PROGRESS's first checks, which swarm.dispatch runs before the signed-agent check and the rate limit:
-- the ids' format, percentComplete's range, the description's and the files' sizes. The error of the first member that breaks one, or NULL.
-- JSON types, required members and enumerations are checked after them, by the operation itself.
CREATE OR REPLACE FUNCTION swarm.check_progress(p_req jsonb, p_options jsonb DEFAULT '{}'::jsonb)
RETURNS jsonb LANGUAGE sql STABLE AS $$
  SELECT coalesce(
    swarm._c_id(p_req, 'agentId', 'agentId'),
    swarm._c_id(p_req, 'taskId', 'taskId'),
    swarm._c_within(p_req -> 'progress', 'percentComplete', 'progress.percentComplete', 0, 100),
    swarm._c_sized(p_req -> 'progress', 'description', 'progress.description', 2000),
    swarm._c_list(p_req -> 'progress', 'filesModified', 'progress.filesModified', 1000, 1024))
$$;

CREATE OR REPLACE FUNCTION swarm.op_progress(p_req jsonb, p_now timestamptz, p_principal uuid, p_admin boolean)
RETURNS jsonb LANGUAGE plpgsql AS $$
DECLARE
  v_agent_id text := swarm._req_str(p_req, 'agentId', 'agentId');
  v_task_id text := swarm._req_str(p_req, 'taskId', 'taskId');
  v_progress jsonb := swarm._obj(p_req, 'progress', 'progress');
  v_record jsonb;
  v_reason text;
  v_err jsonb;
  a swarm.agents;
  t swarm.tasks;
BEGIN
  IF v_progress IS NULL THEN
    PERFORM swarm._invalid('progress', 'is required');
  END IF;
  PERFORM swarm._required(v_progress, 'phase', 'progress.phase');
  PERFORM swarm._required(v_progress, 'percentComplete', 'progress.percentComplete');
  PERFORM swarm._req_str(v_progress, 'description', 'progress.description');
  v_record := jsonb_strip_nulls(jsonb_build_object(
    'phase', swarm._enum(v_progress, 'phase', 'progress.phase',
                         ARRAY['analyzing', 'planning', 'implementing', 'testing', 'reviewing']),
    'percentComplete', swarm._num(v_progress, 'percentComplete', 'progress.percentComplete'),
    'description', swarm._str(v_progress, 'description', 'progress.description'),
    'filesModified', to_jsonb(swarm._str_array(v_progress, 'filesModified', 'progress.filesModified')),
    'updatedAt', swarm._iso(p_now)));

  SELECT * INTO a FROM swarm.agents WHERE id = v_agent_id FOR NO KEY UPDATE;
  -- an agent marked offline still learns that its task was taken away
  v_err := swarm._agent_error(a, v_agent_id, p_principal, p_admin, true);
  IF v_err IS NOT NULL THEN
    RETURN v_err;
  END IF;
  SELECT * INTO t FROM swarm.tasks WHERE id = v_task_id FOR UPDATE;
  IF NOT FOUND THEN
    RETURN swarm._err('task_not_found', 'not_found', format('no task with id %s', v_task_id));
  END IF;
  IF a.status = 'offline' OR t.assigned_agent IS DISTINCT FROM v_agent_id OR t.status NOT IN ('claimed', 'in_progress') THEN
    v_reason := CASE
      WHEN t.status = 'cancelled' THEN 'task_cancelled'
      WHEN t.assigned_agent IS NOT NULL AND t.assigned_agent <> v_agent_id THEN 'task_reassigned'
      WHEN t.assigned_agent = v_agent_id AND t.status IN ('completed', 'needs_review') THEN 'task_already_completed'
      WHEN v_agent_id = ANY (t.previous_agents) THEN 'task_reassigned'
      ELSE 'task_not_assigned' END;
    RETURN swarm._ok(jsonb_build_object('success', false, 'continue', false, 'reason', v_reason, 'status', t.status));
  END IF;

  UPDATE swarm.tasks SET status = 'in_progress', started_at = coalesce(started_at, p_now), progress = v_record,
                         updated_at = p_now
   WHERE id = v_task_id;
  PERFORM swarm._emit('task', 'progress', v_task_id, p_now, jsonb_build_object('agentId', v_agent_id) || v_record);
  RETURN swarm._ok(jsonb_build_object('success', true, 'continue', true));
END $$;
