-- Repeatable migration (Flyway R__): the swarm functions for task management and the shared task transitions. Flyway runs this file again
-- whenever it changes, after the versioned migrations (tables, indexes) in this directory; edit the
-- function here instead of adding a versioned migration. CREATE OR REPLACE keeps a function's
-- signature: to change its arguments or return type, DROP it first in this file.
-- Function bodies are checked when called, not here, so the files may run in any order.
SET LOCAL check_function_bodies = off;

-- Swarm coordinator: task management (create, cancel, review) and the shared task transitions.
--
-- Lock order, everywhere: agent row, then task rows, then quality baseline, leases and dependents.

-- (plpgsql rather than sql functions here and below: their statements' plans are cached per session)
CREATE OR REPLACE FUNCTION swarm._release_task_leases(p_task_id text, p_now timestamptz, p_reason text)
RETURNS integer LANGUAGE plpgsql AS $$
DECLARE
  l record;
  v_count integer := 0;
BEGIN
  FOR l IN DELETE FROM swarm.leases WHERE task_id = p_task_id RETURNING file_path, agent_id LOOP
    PERFORM swarm._emit('lease', 'released', l.file_path, p_now,
                        jsonb_build_object('agentId', l.agent_id, 'taskId', p_task_id, 'reason', p_reason));
    v_count := v_count + 1;
  END LOOP;
  RETURN v_count;
END $$;

-- a task completed: tasks blocked on it lose one unmet dependency and become ready at zero
CREATE OR REPLACE FUNCTION swarm._unblock_dependents(p_task_id text, p_now timestamptz) RETURNS integer LANGUAGE plpgsql AS $$
DECLARE
  d record;
  v_count integer := 0;
BEGIN
  FOR d IN UPDATE swarm.tasks x
              SET unmet_deps = x.unmet_deps - 1,
                  status = CASE WHEN x.unmet_deps = 1 THEN 'ready' ELSE x.status END,
                  updated_at = p_now
            WHERE x.status = 'blocked' AND x.dependencies @> ARRAY[p_task_id]
        RETURNING x.id, x.status LOOP
    IF d.status = 'ready' THEN
      PERFORM swarm._emit('task', 'unblocked', d.id, p_now,
                          jsonb_build_object('status', 'ready', 'completedDependency', p_task_id));
      v_count := v_count + 1;
    END IF;
  END LOOP;
  RETURN v_count;
END $$;

-- FAIL and everything that behaves like it (a crashed agent, a rejected review): count the retry,
-- remember the agent, schedule the retry with backoff or give up, release the task's leases.
-- Returns the FAIL response.
CREATE OR REPLACE FUNCTION swarm._fail_task(t swarm.tasks, p_agent_id text, p_failure jsonb, p_now timestamptz)
RETURNS jsonb LANGUAGE plpgsql AS $$
DECLARE
  v_count integer := t.retry_count + 1;
  v_previous text[] := CASE WHEN p_agent_id IS NULL OR p_agent_id = ANY (t.previous_agents) THEN t.previous_agents
                            ELSE t.previous_agents || p_agent_id END;
  v_retry boolean := coalesce((p_failure ->> 'recoverable')::boolean, false) AND v_count <= t.max_retries;
  v_backoff bigint := CASE WHEN v_retry THEN swarm.retry_backoff_ms(v_count) END;
  v_next_agent text;
  v_response jsonb;
BEGIN
  IF v_retry THEN
    -- the agent most likely to take it next: active, not one that failed it, skills cover it
    SELECT o.id INTO v_next_agent FROM swarm.agents o
     WHERE o.status <> 'offline' AND o.last_heartbeat > p_now - swarm.stale_after()
       AND o.id <> ALL (v_previous) AND t.required_skills <@ o.skills
     ORDER BY (o.status = 'idle') DESC, o.last_heartbeat DESC, o.id
     LIMIT 1;
  END IF;
  v_response := jsonb_strip_nulls(jsonb_build_object(
    'success', true, 'willRetry', v_retry, 'retryAfter', v_backoff, 'nextAgent', v_next_agent));
  UPDATE swarm.tasks SET
    status = CASE WHEN v_retry THEN 'pending_retry' ELSE 'failed' END,
    retry_count = v_count,
    previous_agents = v_previous,
    last_error = p_failure ->> 'message',
    failure_type = p_failure ->> 'type',
    last_failure = jsonb_build_object('agentId', p_agent_id, 'at', swarm._iso(p_now), 'failure', p_failure,
                                      'response', v_response),
    next_retry_at = CASE WHEN v_retry THEN p_now + v_backoff * interval '1 millisecond' END,
    assigned_agent = NULL,
    progress = NULL,
    updated_at = p_now
  WHERE id = t.id;
  PERFORM swarm._release_task_leases(t.id, p_now, 'task_failed');
  PERFORM swarm._emit('task', 'failed', t.id, p_now, jsonb_build_object(
    'agentId', p_agent_id, 'status', CASE WHEN v_retry THEN 'pending_retry' ELSE 'failed' END,
    'failureType', p_failure ->> 'type', 'message', p_failure ->> 'message', 'retryCount', v_count,
    'willRetry', v_retry, 'retryAfter', v_backoff,
    'nextRetryAt', swarm._iso(p_now + v_backoff * interval '1 millisecond')));
  RETURN v_response;
END $$;

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
