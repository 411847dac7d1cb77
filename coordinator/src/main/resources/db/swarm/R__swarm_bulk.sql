-- Operators' actions on tasks: retry one, and retry, cancel or re-prioritise every task a filter
-- matches, in one transaction (TaskRoutes: POST /api/v1/tasks/:id/retry and /api/v1/tasks/bulk).

-- Puts a failed or cancelled task back in line: 'ready', or 'blocked' while a dependency is not
-- completed (counted again: a dependency may have completed while this task was finished), with a
-- fresh retry budget. What it failed with stays in last_error and its history.
CREATE OR REPLACE FUNCTION swarm._retry_task(t swarm.tasks, p_now timestamptz) RETURNS swarm.tasks
LANGUAGE plpgsql AS $$
DECLARE
  v_unmet integer;
  v_out swarm.tasks;
BEGIN
  SELECT count(*)::integer INTO v_unmet FROM unnest(t.dependencies) d
   WHERE NOT EXISTS (SELECT 1 FROM swarm.tasks x WHERE x.id = d AND x.status = 'completed');
  UPDATE swarm.tasks SET
    status = CASE WHEN v_unmet > 0 THEN 'blocked' ELSE 'ready' END,
    unmet_deps = v_unmet,
    retry_count = 0,
    next_retry_at = NULL,
    assigned_agent = NULL,
    progress = NULL,
    cancel_reason = NULL,
    updated_at = p_now
  WHERE id = t.id RETURNING * INTO v_out;
  PERFORM swarm._emit('task', 'retried', t.id, p_now,
                      jsonb_build_object('status', v_out.status, 'previousStatus', t.status));
  RETURN v_out;
END $$;

-- Retries one failed or cancelled task. Raises task_not_found, or invalid_operation for a task in
-- another state.
CREATE OR REPLACE FUNCTION swarm.retry_task(p_task_id text,
                                 p_now timestamptz DEFAULT date_trunc('milliseconds', clock_timestamp()))
RETURNS jsonb LANGUAGE plpgsql AS $$
DECLARE t swarm.tasks;
BEGIN
  SELECT * INTO t FROM swarm.tasks WHERE id = p_task_id FOR UPDATE;
  IF NOT FOUND THEN
    PERFORM swarm._raise(swarm._err('task_not_found', 'not_found', format('no task with id %s', p_task_id)) -> 'error');
  END IF;
  IF t.status NOT IN ('failed', 'cancelled') THEN
    PERFORM swarm._raise(swarm._err('invalid_operation', 'conflict',
      format('task %s is %s; only failed or cancelled tasks can be retried', p_task_id, t.status)) -> 'error');
  END IF;
  RETURN swarm.task_json(swarm._retry_task(t, p_now));
END $$;

-- One action on every task the filter matches, all or nothing. p_filter: {status?: [..], skill?,
-- agent? (assigned now, or an earlier attempt's), olderThanMinutes? (created before), ids?: [..]};
-- the caller (TaskBulk) checked it is not empty. Actions: 'retry' (failed and cancelled tasks),
-- 'cancel' (unfinished ones; p_reason), 'reprioritize' (unfinished ones; p_priority). A matched task
-- the action does not apply to is left as it is. The matched tasks are locked in id order (two bulk
-- actions at once never deadlock: the second waits and then sees what the first left). More than
-- p_limit matches raise too_many_tasks, and nothing changes.
-- Returns {action, matched, changed}.
CREATE OR REPLACE FUNCTION swarm.bulk_tasks(p_action text, p_filter jsonb, p_priority text, p_reason text,
                                 p_limit integer,
                                 p_now timestamptz DEFAULT date_trunc('milliseconds', clock_timestamp()))
RETURNS jsonb LANGUAGE plpgsql AS $$
DECLARE
  v_statuses text[] := CASE WHEN p_filter ? 'status'
                            THEN ARRAY(SELECT jsonb_array_elements_text(p_filter -> 'status')) END;
  v_ids text[] := CASE WHEN p_filter ? 'ids' THEN ARRAY(SELECT jsonb_array_elements_text(p_filter -> 'ids')) END;
  v_skill text := p_filter ->> 'skill';
  v_agent text := p_filter ->> 'agent';
  v_older integer := (p_filter ->> 'olderThanMinutes')::integer;
  v_matched integer := 0;
  v_changed integer := 0;
  t swarm.tasks;
BEGIN
  FOR t IN SELECT * FROM swarm.tasks x
            WHERE (v_statuses IS NULL OR x.status = ANY (v_statuses))
              AND (v_ids IS NULL OR x.id = ANY (v_ids))
              AND (v_skill IS NULL OR x.required_skills @> ARRAY[v_skill])
              AND (v_agent IS NULL OR x.assigned_agent = v_agent OR x.previous_agents @> ARRAY[v_agent])
              AND (v_older IS NULL OR x.created_at < p_now - make_interval(mins => v_older))
            ORDER BY x.id FOR UPDATE LOOP
    v_matched := v_matched + 1;
    IF v_matched > p_limit THEN
      PERFORM swarm._raise(swarm._err('too_many_tasks', 'conflict',
        format('the filter matches more than %s tasks; narrow it (by status, skill, agent, age or ids)', p_limit),
        jsonb_build_object('limit', p_limit)) -> 'error');
    END IF;
    IF p_action = 'retry' AND t.status IN ('failed', 'cancelled') THEN
      PERFORM swarm._retry_task(t, p_now);
      v_changed := v_changed + 1;
    ELSIF p_action = 'cancel' AND t.status NOT IN ('completed', 'failed', 'cancelled') THEN
      PERFORM swarm.cancel_task(t.id, p_reason, p_now);
      v_changed := v_changed + 1;
    ELSIF p_action = 'reprioritize' AND t.status NOT IN ('completed', 'failed', 'cancelled') AND t.priority <> p_priority THEN
      UPDATE swarm.tasks SET priority = p_priority, updated_at = p_now WHERE id = t.id;
      PERFORM swarm._emit('task', 'reprioritized', t.id, p_now,
                          jsonb_build_object('priority', p_priority, 'previousPriority', t.priority));
      v_changed := v_changed + 1;
    END IF;
  END LOOP;
  RETURN jsonb_build_object('action', p_action, 'matched', v_matched, 'changed', v_changed);
END $$;
