-- Repeatable migration (Flyway R__): the swarm operation COMPLETE, its checks, the quality gate and its effect. Flyway runs this file again
-- whenever it changes, after the versioned migrations (tables, indexes) in this directory; edit the
-- function here instead of adding a versioned migration. CREATE OR REPLACE keeps a function's
-- signature: to change its arguments or return type, DROP it first in this file.
-- Function bodies are checked when called, not here, so the files may run in any order.
SET LOCAL check_function_bodies = off;

-- Swarm coordinator: COMPLETE, and the quality gate its qualityMetrics pass through.

-- ---- the quality gate ----------------------------------------------------------------------

-- a COMPLETE's qualityMetrics, when sent: every member present, counts whole and not negative,
-- testsPassed at most testsRan
-- COMPLETE's first checks, which swarm.dispatch runs before the signed-agent check and the rate limit:
-- the ids' format, the result's list and text sizes, the quality counts' upper limit. The error of the first member that breaks one, or NULL.
-- JSON types, required members and enumerations are checked after them, by the operation itself.
CREATE OR REPLACE FUNCTION swarm.check_complete(p_req jsonb, p_options jsonb DEFAULT '{}'::jsonb)
RETURNS jsonb LANGUAGE sql STABLE AS $$
  SELECT coalesce(
    swarm._c_id(p_req, 'agentId', 'agentId'),
    swarm._c_id(p_req, 'taskId', 'taskId'),
    swarm._c_list(p_req -> 'result', 'filesCreated', 'result.filesCreated', 1000, 1024),
    swarm._c_list(p_req -> 'result', 'filesModified', 'result.filesModified', 1000, 1024),
    swarm._c_list(p_req -> 'result', 'filesDeleted', 'result.filesDeleted', 1000, 1024),
    swarm._c_sized(p_req -> 'result', 'summary', 'result.summary', 20000),
    swarm._c_list(p_req -> 'result', 'learnings', 'result.learnings', 50, 4000),
    swarm._c_at_most(p_req -> 'qualityMetrics', 'testsRan', 'qualityMetrics.testsRan', 100000000),
    swarm._c_at_most(p_req -> 'qualityMetrics', 'testsPassed', 'qualityMetrics.testsPassed', 100000000),
    swarm._c_at_most(p_req -> 'qualityMetrics', 'lintErrors', 'qualityMetrics.lintErrors', 100000000),
    swarm._c_at_most(p_req -> 'qualityMetrics', 'typeErrors', 'qualityMetrics.typeErrors', 100000000))
$$;

CREATE OR REPLACE FUNCTION swarm._quality_metrics(p_metrics jsonb) RETURNS void LANGUAGE plpgsql IMMUTABLE AS $$
DECLARE
  v_key text;
  v_count bigint;
BEGIN
  IF p_metrics IS NULL THEN
    RETURN;
  END IF;
  FOREACH v_key IN ARRAY string_to_array('testsRan testsPassed lintErrors typeErrors', ' ') LOOP
    v_count := swarm._int(p_metrics, v_key, 'qualityMetrics.' || v_key);
    IF v_count IS NULL THEN
      PERFORM swarm._invalid('qualityMetrics.' || v_key, 'is required');
    ELSIF v_count < 0 THEN
      PERFORM swarm._invalid('qualityMetrics.' || v_key, 'must not be negative');
    END IF;
  END LOOP;
  IF swarm._bool(p_metrics, 'buildSuccess', 'qualityMetrics.buildSuccess') IS NULL THEN
    PERFORM swarm._invalid('qualityMetrics.buildSuccess', 'is required');
  END IF;
  IF (p_metrics ->> 'testsPassed')::numeric > (p_metrics ->> 'testsRan')::numeric THEN
    PERFORM swarm._invalid('qualityMetrics.testsPassed', 'must not exceed testsRan (' || (p_metrics ->> 'testsRan') || ')');
  END IF;
END $$;

-- Records the snapshot and compares it with the branch's baseline: fewer tests passed, more lint or
-- type errors, or a broken build are regressions. A clean snapshot becomes the new baseline.
CREATE OR REPLACE FUNCTION swarm._quality_gate(t swarm.tasks, a swarm.agents, p_metrics jsonb, p_now timestamptz)
RETURNS jsonb LANGUAGE plpgsql AS $$
DECLARE
  v_branch text := coalesce(t.branch, '');
  v_ran bigint;
  v_tests bigint;
  v_lint bigint;
  v_types bigint;
  v_build boolean;
  b swarm.quality_baselines;
  v_regressions jsonb := '[]'::jsonb;
  v_ok boolean;
BEGIN
  IF p_metrics IS NULL THEN
    RETURN jsonb_build_object('qualityGatePassed', true, 'regressions', '[]'::jsonb, 'nextAction', 'proceed');
  END IF;
  -- (read after the check above: a COMPLETE without metrics, the usual one, reads nothing)
  v_ran := swarm._int(p_metrics, 'testsRan', 'qualityMetrics.testsRan');
  v_tests := swarm._int(p_metrics, 'testsPassed', 'qualityMetrics.testsPassed');
  v_lint := swarm._int(p_metrics, 'lintErrors', 'qualityMetrics.lintErrors');
  v_types := swarm._int(p_metrics, 'typeErrors', 'qualityMetrics.typeErrors');
  v_build := swarm._bool(p_metrics, 'buildSuccess', 'qualityMetrics.buildSuccess');
  -- (op_complete has checked the metrics with swarm._quality_metrics)

  INSERT INTO swarm.quality_baselines (branch) VALUES (v_branch) ON CONFLICT DO NOTHING;
  SELECT * INTO b FROM swarm.quality_baselines WHERE branch = v_branch FOR UPDATE;

  IF NOT v_build AND coalesce(b.build_success, true) THEN
    v_regressions := v_regressions || jsonb_build_array(jsonb_build_object(
      'metric', 'buildSuccess', 'baseline', coalesce(b.build_success, true), 'current', false, 'severity', 'error'));
  END IF;
  IF b.tests_passed IS NOT NULL AND v_tests < b.tests_passed THEN
    v_regressions := v_regressions || jsonb_build_array(jsonb_build_object(
      'metric', 'testsPassed', 'baseline', b.tests_passed, 'current', v_tests, 'delta', v_tests - b.tests_passed,
      'severity', 'error'));
  END IF;
  IF b.type_errors IS NOT NULL AND v_types > b.type_errors THEN
    v_regressions := v_regressions || jsonb_build_array(jsonb_build_object(
      'metric', 'typeErrors', 'baseline', b.type_errors, 'current', v_types, 'delta', v_types - b.type_errors,
      'severity', 'error'));
  END IF;
  IF b.lint_errors IS NOT NULL AND v_lint > b.lint_errors THEN
    v_regressions := v_regressions || jsonb_build_array(jsonb_build_object(
      'metric', 'lintErrors', 'baseline', b.lint_errors, 'current', v_lint, 'delta', v_lint - b.lint_errors,
      'severity', 'warning'));
  END IF;
  v_ok := jsonb_array_length(v_regressions) = 0;

  INSERT INTO swarm.quality_snapshots (task_id, agent_id, branch, tests_ran, tests_passed, lint_errors, type_errors,
                                       build_success, regressions, gate_passed, recorded_at)
  VALUES (t.id, a.id, v_branch, v_ran, v_tests, v_lint, v_types, v_build, v_regressions, v_ok, p_now);
  IF v_ok THEN
    UPDATE swarm.quality_baselines
       SET tests_ran = v_ran, tests_passed = v_tests, lint_errors = v_lint, type_errors = v_types,
           build_success = v_build, task_id = t.id, agent_id = a.id, updated_at = p_now
     WHERE branch = v_branch;
  END IF;
  RETURN jsonb_build_object(
    'qualityGatePassed', v_ok,
    'regressions', v_regressions,
    -- an agent that can run tests and builds can fix what it broke; otherwise a person looks
    'nextAction', CASE WHEN v_ok THEN 'proceed'
                       WHEN a.can_run_tests AND a.can_run_build THEN 'fix_regressions'
                       ELSE 'manual_review' END);
END $$;

-- ---- COMPLETE ------------------------------------------------------------------------------

-- what a COMPLETE of this task gets instead of completing it, or NULL if the agent may complete it:
-- a repeated COMPLETE (for example after a lost response) gets the first answer again, and a task the
-- agent may not report on an error
CREATE OR REPLACE FUNCTION swarm._complete_refusal(t swarm.tasks, p_task_id text, p_agent_id text) RETURNS jsonb
LANGUAGE sql STABLE AS $$
  SELECT CASE WHEN t.status = 'completed' AND t.completed_by = p_agent_id THEN swarm._ok(t.quality)
              ELSE swarm._reportable(t, p_task_id, p_agent_id) END
$$;

-- COMPLETE, written once: every COMPLETE runs through swarm.complete_batch, a single one
-- (swarm.op_complete) as a batch of one.
--
-- A repeated COMPLETE (for example after a lost response) gets the first answer again, and a task the
-- agent may not report on an error (swarm._complete_refusal). Without qualityMetrics, the usual
-- COMPLETE, the gate passes whatever the task, and one UPDATE completes all such tasks of the batch;
-- it is also the check: it writes only a task its agent may report on (swarm._reportable), and a
-- COMPLETE it did not write is then told why. With qualityMetrics, the task is read and checked
-- first, the quality gate records the snapshot and decides between completed and needs_review
-- (swarm._quality_gate), one request after another. Then, for all the tasks written, one statement
-- each releases their leases, unblocks the dependents of those completed, stores the learnings and
-- counts them for their agents. The request's fields are read and checked first (raising on a bad one),
-- and an agent that may not call gets _agent_error's answer.
-- p_items: swarm.dispatch_batch's; p_ords: the places in it (from 1) of these COMPLETEs, at most one
-- per agent. The agents' rows are locked (by swarm.dispatch_batch or swarm.op_complete). Returns each
-- one's result and its events (to emit), the written ones in request order.
-- (one generic plan for every call: planning each for its arrays costs more than running it)
CREATE OR REPLACE FUNCTION swarm.complete_batch(p_items jsonb, p_ords integer[], p_now timestamptz)
RETURNS TABLE (o integer, result jsonb, events jsonb)
LANGUAGE plpgsql SET plan_cache_mode = force_generic_plan AS $$
DECLARE
  -- without metrics the gate passes (swarm._quality_gate)
  v_plain_response constant jsonb := jsonb_build_object('success', true, 'qualityGatePassed', true,
                                                        'regressions', '[]'::jsonb, 'nextAction', 'proceed');
  q record;
  v_task swarm.tasks;
  v_result jsonb;
  v_metrics jsonb;
  v_checked text[];
  v_gate jsonb;
  v_err jsonb;
  -- the COMPLETEs the agents may make, in request order
  v_ords integer[] := '{}';
  v_agent_ids text[] := '{}';
  v_task_ids text[] := '{}';
  v_results jsonb[] := '{}';
  v_learnings jsonb[] := '{}';
  v_learned boolean := false;
  -- the gate's answer of those with qualityMetrics (NULL for the others), and their agents' rows
  v_gates jsonb[] := '{}';
  v_agents swarm.agents[] := '{}';
  v_gated boolean := false;
  -- the tasks written, and the answers of the COMPLETEs that wrote nothing
  v_done_ords integer[];
  v_done_tasks text[];
  v_done_agents text[];
  v_done_passed boolean[];
  v_refused_ords integer[] := '{}';
  v_refusals jsonb[] := '{}';
  v_lease_events jsonb;
  v_unblock_events jsonb;
BEGIN
  FOR q IN SELECT * FROM swarm._batch_callers(p_items, p_ords) LOOP
    -- the request's checks, each raising on a bad field (an assignment rather than PERFORM: see swarm._emit)
    v_checked := ARRAY[swarm._req_str(q.request, 'agentId', 'agentId'), swarm._req_str(q.request, 'taskId', 'taskId')];
    v_result := swarm._obj(q.request, 'result', 'result');
    IF v_result IS NULL THEN
      PERFORM swarm._invalid('result', 'is required');
    END IF;
    v_checked := ARRAY[swarm._req_str(v_result, 'summary', 'result.summary')]
              || swarm._str_array(v_result, 'filesCreated', 'result.filesCreated')
              || swarm._str_array(v_result, 'filesModified', 'result.filesModified')
              || swarm._str_array(v_result, 'filesDeleted', 'result.filesDeleted')
              || swarm._str_array(v_result, 'learnings', 'result.learnings');
    -- stored as the protocol has it: the file lists (empty when not sent), the summary and the
    -- learnings when sent; other members are left out
    v_result := jsonb_build_object('filesCreated', coalesce(nullif(v_result -> 'filesCreated', 'null'), '[]'),
                                   'filesModified', coalesce(nullif(v_result -> 'filesModified', 'null'), '[]'),
                                   'filesDeleted', coalesce(nullif(v_result -> 'filesDeleted', 'null'), '[]'),
                                   'summary', v_result -> 'summary')
                || CASE WHEN coalesce(v_result -> 'learnings', 'null') = 'null' THEN '{}'::jsonb
                        ELSE jsonb_build_object('learnings', v_result -> 'learnings') END;
    v_metrics := swarm._obj(q.request, 'qualityMetrics', 'qualityMetrics');
    IF v_metrics IS NOT NULL THEN
      PERFORM swarm._quality_metrics(v_metrics);
    END IF;
    result := q.refusal;
    IF result IS NOT NULL THEN
      o := q.o;
      events := NULL;
      RETURN NEXT;
      CONTINUE;
    END IF;
    v_gate := NULL;
    IF v_metrics IS NOT NULL THEN
      -- the quality gate reads the task (its branch) and records a snapshot: check the task first
      SELECT * INTO v_task FROM swarm.tasks WHERE id = q.request ->> 'taskId' FOR UPDATE;
      v_err := swarm._complete_refusal(v_task, q.request ->> 'taskId', q.agent_id);
      IF v_err IS NOT NULL THEN
        o := q.o;
        result := v_err;
        events := NULL;
        RETURN NEXT;
        CONTINUE;
      END IF;
      v_gate := jsonb_build_object('success', true) || swarm._quality_gate(v_task, q.agent, v_metrics, p_now);
      v_gated := true;
    END IF;
    v_ords := array_append(v_ords, q.o);
    v_agent_ids := array_append(v_agent_ids, q.agent_id);
    v_task_ids := array_append(v_task_ids, q.request ->> 'taskId');
    v_results := array_append(v_results, v_result);
    v_gates := array_append(v_gates, v_gate);
    v_learnings := array_append(v_learnings, v_result -> 'learnings');
    v_learned := v_learned OR coalesce(v_result -> 'learnings', '[]'::jsonb) <> '[]'::jsonb;
  END LOOP;
  IF cardinality(v_ords) = 0 THEN
    RETURN;
  END IF;

  -- the tasks these agents may report on, completed or sent to review (the rule as a condition on the
  -- row the primary key finds, not as columns the planner could choose another index for: by
  -- assigned_agent, it would read every task the agent ever had)
  WITH p AS (SELECT p.o, p.agent_id, p.task_id, p.res, coalesce(p.gate, v_plain_response) AS response
               FROM unnest(v_ords, v_agent_ids, v_task_ids, v_results, v_gates) p(o, agent_id, task_id, res, gate)),
  done AS (
    UPDATE swarm.tasks t
       SET status = CASE WHEN (p.response ->> 'qualityGatePassed')::boolean THEN 'completed' ELSE 'needs_review' END,
           result = p.res, quality = p.response, completed_by = p.agent_id,
           completed_at = CASE WHEN (p.response ->> 'qualityGatePassed')::boolean THEN p_now END, updated_at = p_now
      FROM p
     -- (= ANY as well as the join: the generic plan then finds the rows by primary key, however many
     -- it expects, instead of joining the whole table)
     WHERE t.id = p.task_id AND t.id = ANY (v_task_ids) AND swarm._reportable(t, p.task_id, p.agent_id) IS NULL
    RETURNING p.o, p.task_id, p.agent_id, (p.response ->> 'qualityGatePassed')::boolean AS passed)
  SELECT coalesce(array_agg(d.o ORDER BY d.o), '{}'), coalesce(array_agg(d.task_id ORDER BY d.o), '{}'),
         coalesce(array_agg(d.agent_id ORDER BY d.o), '{}'), coalesce(array_agg(d.passed ORDER BY d.o), '{}')
    INTO v_done_ords, v_done_tasks, v_done_agents, v_done_passed
    FROM done d;

  -- those it did not write: why (or, for a repeated COMPLETE, the first answer again)
  IF cardinality(v_done_ords) < cardinality(v_ords) THEN
    FOR q IN SELECT p.o, p.task_id, p.agent_id FROM unnest(v_ords, v_task_ids, v_agent_ids) p(o, task_id, agent_id)
              WHERE p.o <> ALL (v_done_ords) LOOP
      SELECT * INTO v_task FROM swarm.tasks WHERE id = q.task_id FOR UPDATE;
      v_refused_ords := array_append(v_refused_ords, q.o);
      v_refusals := array_append(v_refusals, coalesce(swarm._complete_refusal(v_task, q.task_id, q.agent_id),
        -- (only if the task became this agent's to report on since the UPDATE, which no path does)
        swarm._err('invalid_operation', 'conflict',
                   format('task %s changed while it was being completed; send COMPLETE again', q.task_id))));
    END LOOP;
  END IF;

  IF cardinality(v_done_ords) > 0 THEN
    UPDATE swarm.agents a
       SET status = CASE WHEN a.current_task = p.task_id THEN 'idle' ELSE a.status END,
           current_task = CASE WHEN a.current_task = p.task_id THEN NULL ELSE a.current_task END,
           tasks_completed = a.tasks_completed + CASE WHEN p.passed THEN 1 ELSE 0 END
      FROM unnest(v_done_agents, v_done_tasks, v_done_passed) p(agent_id, task_id, passed)
     WHERE a.id = p.agent_id AND a.id = ANY (v_done_agents);

    -- their leases released (as swarm._release_task_leases), with an event each
    WITH released AS (
      DELETE FROM swarm.leases l WHERE l.task_id = ANY (v_done_tasks) RETURNING l.file_path, l.agent_id, l.task_id)
    SELECT jsonb_agg(jsonb_build_array(r.task_id, swarm._event('lease', 'released', r.file_path, p_now,
             jsonb_build_object('agentId', r.agent_id, 'taskId', r.task_id, 'reason', 'task_completed'))))
      INTO v_lease_events
      FROM released r;

    -- the dependents of those completed lose one unmet dependency each and become ready at zero (as
    -- swarm._unblock_dependents); the event names the dependency completed last in request order
    WITH completed AS (
      SELECT d.task_id, d.o FROM unnest(v_done_tasks, v_done_ords, v_done_passed) d(task_id, o, passed) WHERE d.passed),
    deps AS (
      SELECT x.id, count(*)::integer AS n, (array_agg(d.task_id ORDER BY d.o DESC))[1] AS last_dep
        FROM swarm.tasks x
        JOIN completed d ON d.task_id = ANY (x.dependencies)
       WHERE x.status = 'blocked' AND x.dependencies && v_done_tasks
       GROUP BY x.id),
    unblocked AS (
      UPDATE swarm.tasks x
         SET unmet_deps = x.unmet_deps - deps.n,
             status = CASE WHEN x.unmet_deps = deps.n THEN 'ready' ELSE x.status END,
             updated_at = p_now
        FROM deps
       WHERE x.id = deps.id AND x.status = 'blocked'
      RETURNING x.id, x.status, deps.last_dep)
    SELECT jsonb_agg(jsonb_build_array(u.last_dep, swarm._event('task', 'unblocked', u.id, p_now,
             jsonb_build_object('status', 'ready', 'completedDependency', u.last_dep))))
      INTO v_unblock_events
      FROM unblocked u
     WHERE u.status = 'ready';

    IF v_learned THEN
      INSERT INTO swarm.learnings (task_id, agent_id, content, created_at)
      SELECT p.task_id, p.agent_id, btrim(l.content), p_now
        FROM unnest(v_ords, v_task_ids, v_agent_ids, v_learnings) p(o, task_id, agent_id, learn),
             jsonb_array_elements_text(coalesce(p.learn, '[]'::jsonb)) WITH ORDINALITY l(content, n)
       WHERE btrim(l.content) <> '' AND p.o = ANY (v_done_ords)
       -- (in request order, as one request after another would store them: related learnings of equal
       -- rank come newest first)
       ORDER BY p.o, l.n
      ON CONFLICT DO NOTHING;
    END IF;
  END IF;

  -- each written request's events: its leases', its dependents', then its own; then the refusals
  -- (told after the tasks were written)
  RETURN QUERY
  SELECT x.o, x.result, x.events FROM (
  SELECT d.o, false AS refused, swarm._ok(p.response) AS result,
         coalesce((SELECT jsonb_agg(e -> 1) FROM jsonb_array_elements(v_lease_events) e WHERE e ->> 0 = d.task_id), '[]'::jsonb)
         || coalesce((SELECT jsonb_agg(e -> 1) FROM jsonb_array_elements(v_unblock_events) e WHERE e ->> 0 = d.task_id), '[]'::jsonb)
         || jsonb_build_array(swarm._event('task', CASE WHEN d.passed THEN 'completed' ELSE 'needs_review' END, d.task_id, p_now,
              jsonb_build_object('agentId', d.agent_id, 'qualityGatePassed', d.passed,
                                 'regressions', p.response -> 'regressions', 'nextAction', p.response ->> 'nextAction'))) AS events
    FROM unnest(v_done_ords, v_done_tasks, v_done_agents, v_done_passed) d(o, task_id, agent_id, passed)
    JOIN (SELECT g.o, coalesce(g.gate, v_plain_response) AS response FROM unnest(v_ords, v_gates) g(o, gate)) p ON p.o = d.o
   UNION ALL
  SELECT r.o, true, r.refusal, NULL::jsonb FROM unnest(v_refused_ords, v_refusals) r(o, refusal)) x
   ORDER BY x.refused, x.o;
END $$;

-- COMPLETE alone: the agent's row locked (as swarm.dispatch_batch locks a batch's), then
-- swarm.complete_batch with this one request
CREATE OR REPLACE FUNCTION swarm.op_complete(p_req jsonb, p_now timestamptz, p_principal uuid, p_admin boolean)
RETURNS jsonb LANGUAGE plpgsql AS $$
DECLARE
  r record;
  v_emitted integer;
BEGIN
  PERFORM 1 FROM swarm.agents WHERE id = swarm._req_str(p_req, 'agentId', 'agentId') FOR NO KEY UPDATE;
  SELECT * INTO r FROM swarm.complete_batch(
    jsonb_build_array(jsonb_build_object('request', p_req, 'principal', p_principal,
                                         'options', jsonb_build_object('admin', p_admin))), '{1}', p_now);
  v_emitted := swarm._emit_events(r.events);
  RETURN r.result;
END $$;
