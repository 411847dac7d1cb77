-- Repeatable migration (Flyway R__): the swarm functions for the operator's actions: creating, cancelling and reviewing tasks, and commands to agents. Flyway runs this file again
-- whenever it changes, after the versioned migrations (tables, indexes) in this directory; edit the
-- function here instead of adding a versioned migration. CREATE OR REPLACE keeps a function's
-- signature: to change its arguments or return type, DROP it first in this file.
-- Function bodies are checked when called, not here, so the files may run in any order.
SET LOCAL check_function_bodies = off;

-- Swarm coordinator: what the operator's API does (not the agents' protocol): task management
-- (create, cancel, review) and the commands an agent gets with its next heartbeat. Retrying and bulk
-- actions are in R__swarm_bulk.sql.

-- Creates tasks from an array of {id?, title, description?, priority?, type?, requiredSkills?,
-- dependencies?, files?, estimatedMinutes?, branch?, maxRetries?}. A dependency names an existing
-- task or one earlier in the same array, so no request can create a cycle. Tasks with unfinished
-- dependencies start 'blocked', the others 'ready'. Returns the created tasks. Raises on bad input.
-- p_trace_context: the W3C traceparent the tasks' attempts continue (swarm.tasks.trace_context); NULL for none.
-- A task with a uniqueKey (V18) is not created when a task with that key is unfinished, or was created
-- less than its uniqueWindowMinutes (default 0) ago: the answer holds that task instead, marked
-- "existing": true, and a dependency on it later in the same request names it. Creates of one key are
-- serialized on an advisory lock taken before any row is read, keys in sorted order (no deadlock
-- between two requests naming the same keys in other orders).
DROP FUNCTION IF EXISTS swarm.create_tasks(jsonb, timestamptz, integer);
CREATE OR REPLACE FUNCTION swarm.create_tasks(p_tasks jsonb,
                                   p_now timestamptz DEFAULT date_trunc('milliseconds', clock_timestamp()),
                                   p_default_max_retries integer DEFAULT 2,
                                   p_trace_context text DEFAULT NULL)
RETURNS jsonb LANGUAGE plpgsql AS $$
DECLARE
  v_task jsonb;
  v_path text;
  v_i integer := 0;
  v_id text;
  v_ids text[] := '{}';
  v_deps text[];
  v_dep text;
  v_est bigint;
  v_retries bigint;
  v_new jsonb[] := '{}';
  v_taken text;
  v_out jsonb;
  v_key text;
  v_keys text[] := '{}';
  v_window bigint;
  v_existing text;
  v_same jsonb := '{}';      -- a request's id -> the existing unique task that stands for it
  v_order text[] := '{}';    -- the answer's ids, in the request's order
  v_keyed jsonb := '{}';     -- a created task's id -> its uniqueKey
BEGIN
  IF p_tasks IS NULL OR jsonb_typeof(p_tasks) <> 'array' OR jsonb_array_length(p_tasks) = 0 THEN
    PERFORM swarm._invalid('tasks', 'must be a non-empty array');
  END IF;
  FOR v_key IN SELECT DISTINCT e ->> 'uniqueKey' FROM jsonb_array_elements(p_tasks) e
                WHERE jsonb_typeof(e) = 'object' AND jsonb_typeof(e -> 'uniqueKey') = 'string' ORDER BY 1 LOOP
    PERFORM pg_advisory_xact_lock(hashtextextended('swarm.tasks.unique_key:' || v_key, 0));
  END LOOP;
  FOR v_task IN SELECT e FROM jsonb_array_elements(p_tasks) e LOOP
    v_path := format('tasks[%s]', v_i);
    IF jsonb_typeof(v_task) <> 'object' THEN
      PERFORM swarm._invalid(v_path, 'must be an object');
    END IF;
    v_id := coalesce(swarm._str(v_task, 'id', v_path || '.id'), gen_random_uuid()::text);
    IF v_id !~ '^[A-Za-z0-9][A-Za-z0-9._:@-]{0,127}$' THEN
      PERFORM swarm._invalid(v_path || '.id', 'must be 1-128 letters, digits, ''.'', ''_'', '':'', ''@'' or ''-''');
    END IF;
    IF v_id = ANY (v_ids) OR v_same ? v_id THEN
      PERFORM swarm._invalid(v_path || '.id', 'repeats the id ' || v_id || ' of an earlier task in this request');
    END IF;
    v_key := swarm._str(v_task, 'uniqueKey', v_path || '.uniqueKey');
    IF v_key IS NOT NULL THEN
      IF length(v_key) < 1 OR length(v_key) > 256 THEN
        PERFORM swarm._invalid(v_path || '.uniqueKey', 'must be 1-256 characters');
      END IF;
      IF v_key = ANY (v_keys) THEN
        PERFORM swarm._invalid(v_path || '.uniqueKey', 'repeats the uniqueKey of an earlier task in this request');
      END IF;
      v_keys := v_keys || v_key;
      v_window := coalesce(swarm._int(v_task, 'uniqueWindowMinutes', v_path || '.uniqueWindowMinutes'), 0);
      IF v_window < 0 OR v_window > 525600 THEN
        PERFORM swarm._invalid(v_path || '.uniqueWindowMinutes', 'must be between 0 and 525600 (a year)');
      END IF;
      SELECT t.id INTO v_existing FROM swarm.tasks t
       WHERE t.unique_key = v_key
         AND (t.status NOT IN ('completed', 'failed', 'cancelled') OR t.created_at > p_now - make_interval(mins => v_window::integer))
       ORDER BY t.seq DESC LIMIT 1;
      IF v_existing IS NOT NULL THEN
        v_same := v_same || jsonb_build_object(v_id, v_existing);
        v_order := v_order || v_existing;
        v_i := v_i + 1;
        CONTINUE;
      END IF;
      v_keyed := v_keyed || jsonb_build_object(v_id, v_key);
    ELSIF v_task ? 'uniqueWindowMinutes' THEN
      PERFORM swarm._invalid(v_path || '.uniqueWindowMinutes', 'needs a uniqueKey');
    END IF;
    v_deps := swarm._distinct(coalesce(swarm._str_array(v_task, 'dependencies', v_path || '.dependencies'), '{}'));
    -- a dependency on a task of this request that an existing unique task stands for names that task
    SELECT coalesce(array_agg(coalesce(v_same ->> d, d) ORDER BY o), '{}') INTO v_deps FROM unnest(v_deps) WITH ORDINALITY AS x(d, o);
    v_deps := swarm._distinct(v_deps);
    FOREACH v_dep IN ARRAY v_deps LOOP
      IF v_dep = v_id THEN
        PERFORM swarm._invalid(v_path || '.dependencies', 'names the task itself');
      END IF;
      IF NOT v_dep = ANY (v_ids) AND NOT EXISTS (SELECT 1 FROM swarm.tasks t WHERE t.id = v_dep) THEN
        PERFORM swarm._invalid(v_path || '.dependencies',
          'names ' || v_dep || ', which is neither an existing task nor an earlier task in this request');
      END IF;
    END LOOP;
    v_est := swarm._int(v_task, 'estimatedMinutes', v_path || '.estimatedMinutes');
    IF v_est IS NOT NULL AND (v_est < 1 OR v_est > 100000) THEN
      PERFORM swarm._invalid(v_path || '.estimatedMinutes', 'must be between 1 and 100000');
    END IF;
    v_retries := coalesce(swarm._int(v_task, 'maxRetries', v_path || '.maxRetries'), p_default_max_retries);
    IF v_retries < 0 OR v_retries > 100 THEN
      PERFORM swarm._invalid(v_path || '.maxRetries', 'must be between 0 and 100');
    END IF;
    v_new := v_new || jsonb_build_object(
      'ord', v_i,
      'id', v_id,
      'title', swarm._req_str(v_task, 'title', v_path || '.title'),
      'description', coalesce(swarm._str(v_task, 'description', v_path || '.description'), ''),
      'priority', coalesce(swarm._enum(v_task, 'priority', v_path || '.priority',
                                       ARRAY['critical', 'high', 'medium', 'low']), 'medium'),
      'type', coalesce(swarm._enum(v_task, 'type', v_path || '.type',
                                   ARRAY['code', 'test', 'browser_test', 'documentation', 'review', 'custom']), 'code'),
      'required_skills', to_jsonb(swarm._skills(coalesce(
                           swarm._str_array(v_task, 'requiredSkills', v_path || '.requiredSkills'), '{}'))),
      'dependencies', to_jsonb(v_deps),
      'files', to_jsonb(coalesce(swarm._str_array(v_task, 'files', v_path || '.files'), '{}')),
      'estimated_minutes', v_est,
      'branch', swarm._str(v_task, 'branch', v_path || '.branch'),
      'max_retries', v_retries);
    v_ids := v_ids || v_id;
    v_order := v_order || v_id;
    v_i := v_i + 1;
  END LOOP;

  IF cardinality(v_ids) = 0 THEN
    -- every task of the request exists already as a unique task
    SELECT jsonb_agg(swarm.task_json(t) || jsonb_build_object('uniqueKey', t.unique_key, 'existing', true)
                     ORDER BY array_position(v_order, t.id)) INTO v_out
      FROM swarm.tasks t WHERE t.id = ANY (v_order);
    RETURN v_out;
  END IF;

  SELECT t.id INTO v_taken FROM swarm.tasks t WHERE t.id = ANY (v_ids) LIMIT 1;
  IF v_taken IS NOT NULL THEN
    PERFORM swarm._raise(swarm._err('task_already_exists', 'conflict',
      format('a task with id %s exists already', v_taken), jsonb_build_object('taskId', v_taken)) -> 'error');
  END IF;

  -- existing dependencies may not change state until this commits, so unmet counts stay exact
  PERFORM 1 FROM swarm.tasks t
   WHERE t.id IN (SELECT DISTINCT d FROM unnest(v_new) n, jsonb_array_elements_text(n -> 'dependencies') d)
   ORDER BY t.id FOR SHARE;

  WITH ins AS (
    INSERT INTO swarm.tasks (id, title, description, status, priority, type, required_skills, dependencies,
                             unmet_deps, files, estimated_minutes, branch, max_retries, words, created_at, updated_at)
    SELECT x.id, x.title, x.description, CASE WHEN u.unmet > 0 THEN 'blocked' ELSE 'ready' END,
           x.priority, x.type, x.required_skills, x.dependencies, u.unmet, x.files, x.estimated_minutes,
           x.branch, x.max_retries, swarm._any_words(x.title || ' ' || x.description), p_now, p_now
      FROM unnest(v_new) AS n(doc)
      CROSS JOIN LATERAL jsonb_to_record(n.doc) AS x(ord integer, id text, title text, description text, priority text,
                                                     type text, required_skills text[], dependencies text[], files text[],
                                                     estimated_minutes integer, branch text, max_retries integer)
      CROSS JOIN LATERAL (
        SELECT count(*)::integer AS unmet FROM unnest(x.dependencies) d
         WHERE d = ANY (v_ids) OR NOT EXISTS (SELECT 1 FROM swarm.tasks t WHERE t.id = d AND t.status = 'completed')) u
     ORDER BY x.ord
    RETURNING id, status, priority, unmet_deps),
  ev AS (
    SELECT swarm._emit('task', 'created', i.id, p_now,
                       jsonb_build_object('status', i.status, 'priority', i.priority, 'unmetDependencies', i.unmet_deps))
      FROM ins i)
  SELECT count(*) INTO v_i FROM ev;
  -- (a statement of its own, run only in a trace: this file also runs on databases from before V17,
  -- whose tasks have no trace_context, and PL/pgSQL looks at a statement's columns when it runs it)
  IF p_trace_context IS NOT NULL THEN
    UPDATE swarm.tasks SET trace_context = p_trace_context WHERE id = ANY (v_ids);
  END IF;

  -- a bulk load changes the table's statistics: refresh them now rather than after autovacuum's next
  -- round, so that claims keep walking the claim-order index instead of sorting every ready task
  IF v_i >= 200 AND v_i > 0.2 * (SELECT greatest(reltuples, 0) FROM pg_class WHERE oid = 'swarm.tasks'::regclass) THEN
    ANALYZE swarm.tasks;
  END IF;

  IF v_same = '{}'::jsonb AND v_keyed = '{}'::jsonb THEN
    SELECT jsonb_agg(swarm.task_json(t) ORDER BY t.seq) INTO v_out FROM swarm.tasks t WHERE t.id = ANY (v_ids);
    RETURN v_out;
  END IF;
  -- (statements of their own, run only with unique keys: this file also runs on databases from before V18)
  UPDATE swarm.tasks t SET unique_key = k.value FROM jsonb_each_text(v_keyed) k WHERE t.id = k.key;
  SELECT jsonb_agg(swarm.task_json(t)
                   || jsonb_strip_nulls(jsonb_build_object('uniqueKey', t.unique_key))
                   || CASE WHEN t.id = ANY (v_ids) THEN '{}'::jsonb ELSE '{"existing": true}'::jsonb END
                   ORDER BY array_position(v_order, t.id)) INTO v_out
    FROM swarm.tasks t WHERE t.id = ANY (v_order);
  RETURN v_out;
END $$;

-- Cancels a task that is not finished. Idempotent for a cancelled task. Raises on errors.
CREATE OR REPLACE FUNCTION swarm.cancel_task(p_task_id text, p_reason text DEFAULT NULL,
                                  p_now timestamptz DEFAULT date_trunc('milliseconds', clock_timestamp()))
RETURNS jsonb LANGUAGE plpgsql AS $$
DECLARE t swarm.tasks;
BEGIN
  SELECT * INTO t FROM swarm.tasks WHERE id = p_task_id FOR UPDATE;
  IF NOT FOUND THEN
    PERFORM swarm._raise(swarm._err('task_not_found', 'not_found', format('no task with id %s', p_task_id)) -> 'error');
  END IF;
  IF t.status = 'cancelled' THEN
    RETURN swarm.task_json(t);
  END IF;
  IF t.status IN ('completed', 'failed') THEN
    PERFORM swarm._raise(swarm._err('invalid_operation', 'conflict',
      format('task %s is %s; only unfinished tasks can be cancelled', p_task_id, t.status)) -> 'error');
  END IF;
  UPDATE swarm.tasks SET status = 'cancelled', cancel_reason = p_reason, next_retry_at = NULL, updated_at = p_now
   WHERE id = p_task_id RETURNING * INTO t;
  PERFORM swarm._release_task_leases(p_task_id, p_now, 'task_cancelled');
  PERFORM swarm._emit('task', 'cancelled', p_task_id, p_now,
                      jsonb_build_object('agentId', t.assigned_agent, 'reason', p_reason));
  RETURN swarm.task_json(t);
END $$;

-- Decides a task in needs_review: 'approve' completes it (its snapshot becomes the baseline),
-- 'reject' fails it as a recoverable quality_failure (retry rules apply). Raises on errors.
CREATE OR REPLACE FUNCTION swarm.review_task(p_task_id text, p_decision text, p_reason text DEFAULT NULL,
                                  p_now timestamptz DEFAULT date_trunc('milliseconds', clock_timestamp()))
RETURNS jsonb LANGUAGE plpgsql AS $$
DECLARE t swarm.tasks;
BEGIN
  IF p_decision IS NULL OR p_decision NOT IN ('approve', 'reject') THEN
    PERFORM swarm._invalid('decision', 'must be one of approve, reject');
  END IF;
  SELECT * INTO t FROM swarm.tasks WHERE id = p_task_id FOR UPDATE;
  IF NOT FOUND THEN
    PERFORM swarm._raise(swarm._err('task_not_found', 'not_found', format('no task with id %s', p_task_id)) -> 'error');
  END IF;
  IF t.status <> 'needs_review' THEN
    PERFORM swarm._raise(swarm._err('invalid_operation', 'conflict',
      format('task %s is %s; only tasks in needs_review can be reviewed', p_task_id, t.status)) -> 'error');
  END IF;
  IF p_decision = 'approve' THEN
    UPDATE swarm.tasks SET status = 'completed', completed_at = p_now, updated_at = p_now,
                           quality = quality || jsonb_build_object('review', 'approved')
     WHERE id = p_task_id;
    UPDATE swarm.quality_baselines b
       SET tests_ran = s.tests_ran, tests_passed = s.tests_passed, lint_errors = s.lint_errors,
           type_errors = s.type_errors, build_success = s.build_success, task_id = s.task_id,
           agent_id = s.agent_id, updated_at = p_now
      FROM (SELECT * FROM swarm.quality_snapshots WHERE task_id = p_task_id ORDER BY id DESC LIMIT 1) s
     WHERE b.branch = s.branch;
    PERFORM swarm._unblock_dependents(p_task_id, p_now);
    PERFORM swarm._emit('task', 'completed', p_task_id, p_now,
                        jsonb_build_object('agentId', t.completed_by, 'review', 'approved', 'reason', p_reason));
  ELSE
    PERFORM swarm._fail_task(t, t.completed_by, jsonb_build_object('type', 'quality_failure',
      'message', coalesce(p_reason, 'rejected in review'), 'recoverable', true), p_now);
  END IF;
  SELECT * INTO t FROM swarm.tasks WHERE id = p_task_id;
  RETURN swarm.task_json(t);
END $$;

-- Queues a command for an agent's next heartbeat: {type: SHUTDOWN, reason} | {type: RELEASE_TASK,
-- taskId, reason} | {type: PING}. Raises on errors. Returns the queued command.
CREATE OR REPLACE FUNCTION swarm.queue_command(p_agent_id text, p_command jsonb,
                                    p_now timestamptz DEFAULT date_trunc('milliseconds', clock_timestamp()))
RETURNS jsonb LANGUAGE plpgsql AS $$
DECLARE
  v_type text := swarm._enum(p_command, 'type', 'type', ARRAY['SHUTDOWN', 'RELEASE_TASK', 'PING']);
  v_command jsonb;
BEGIN
  IF v_type IS NULL THEN
    PERFORM swarm._invalid('type', 'is required');
  END IF;
  IF NOT EXISTS (SELECT 1 FROM swarm.agents WHERE id = p_agent_id) THEN
    PERFORM swarm._raise(swarm._err('agent_not_registered', 'not_found',
                                    format('agent %s is not registered', p_agent_id)) -> 'error');
  END IF;
  v_command := CASE v_type
    WHEN 'PING' THEN jsonb_build_object('type', 'PING')
    WHEN 'SHUTDOWN' THEN jsonb_build_object('type', 'SHUTDOWN', 'reason', swarm._req_str(p_command, 'reason', 'reason'))
    ELSE jsonb_build_object('type', 'RELEASE_TASK', 'taskId', swarm._req_str(p_command, 'taskId', 'taskId'),
                            'reason', swarm._req_str(p_command, 'reason', 'reason')) END;
  INSERT INTO swarm.agent_commands (agent_id, command, created_at) VALUES (p_agent_id, v_command, p_now);
  PERFORM swarm._emit('agent', 'command_queued', p_agent_id, p_now, v_command);
  RETURN v_command;
END $$;
