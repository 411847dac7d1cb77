-- Repeatable migration (Flyway R__): the swarm functions for CLAIM. Flyway runs this file again
-- whenever it changes, after the versioned migrations (tables, indexes) in this directory; edit the
-- function here instead of adding a versioned migration. CREATE OR REPLACE keeps a function's
-- signature: to change its arguments or return type, DROP it first in this file.
-- Function bodies are checked when called, not here, so the files may run in any order.
SET LOCAL check_function_bodies = off;

-- Swarm coordinator: CLAIM.
--
-- A task qualifies for an agent when it is 'ready' (so every dependency is completed), its required
-- skills are all among the agent's skills (narrowed to filter.skills when given), it is not in
-- filter.excludeIds, and it matches filter.priorities, filter.types and filter.maxMinutes (a task
-- without an estimate passes maxMinutes). Empty filter lists mean "no restriction".
-- Order: priority (critical, high, medium, low), then creation time.
-- A task the agent failed before (it is in previousAgents) is handed back to it only when no other
-- agent could take it: active (not offline, heartbeat within 2 minutes), not in previousAgents,
-- and with skills covering the task's required skills.

-- the claim filter of a request, normalized: the skills to match (the agent's, narrowed to
-- filter.skills when given), and priorities, types (NULL: no restriction), excludeIds, maxMinutes.
-- (Returned as columns, not as JSON, so the claim reads them without decoding: it runs on every CLAIM.)
DROP FUNCTION IF EXISTS swarm._claim_filter(jsonb, swarm.agents);
DROP FUNCTION IF EXISTS swarm._text_array(jsonb);
CREATE OR REPLACE FUNCTION swarm._claim_criteria(p_req jsonb, a swarm.agents,
                                                 OUT skills text[], OUT priorities text[], OUT types text[],
                                                 OUT exclude text[], OUT max_minutes bigint)
LANGUAGE plpgsql IMMUTABLE AS $$
DECLARE
  f jsonb := coalesce(swarm._obj(p_req, 'filter', 'filter'), '{}'::jsonb);
  v_skills text[];
BEGIN
  IF f = '{}'::jsonb THEN
    -- no filter, the usual claim: the agent's own skills, no other restriction (and nothing to decode)
    skills := a.skills;
    exclude := '{}';
    RETURN;
  END IF;
  v_skills := swarm._skills(coalesce(swarm._str_array(f, 'skills', 'filter.skills'), '{}'));
  priorities := swarm._enum_array(f, 'priorities', 'filter.priorities', ARRAY['critical', 'high', 'medium', 'low']);
  types := swarm._enum_array(f, 'types', 'filter.types', ARRAY['code', 'test', 'browser_test', 'documentation', 'review', 'custom']);
  max_minutes := swarm._int(f, 'maxMinutes', 'filter.maxMinutes');
  IF cardinality(priorities) = 0 THEN priorities := NULL; END IF;
  IF cardinality(types) = 0 THEN types := NULL; END IF;
  skills := CASE WHEN cardinality(v_skills) = 0 THEN a.skills
                 ELSE ARRAY(SELECT unnest(a.skills) INTERSECT SELECT unnest(v_skills)) END;
  exclude := coalesce(swarm._str_array(f, 'excludeIds', 'filter.excludeIds'), '{}');
END $$;

-- does the task match the agent's skills and the (normalized) filter? (state and locks aside)
CREATE OR REPLACE FUNCTION swarm._matches(t swarm.tasks, p_skills text[], p_priorities text[], p_types text[],
                               p_exclude text[], p_max bigint)
RETURNS boolean LANGUAGE sql IMMUTABLE AS $$
  SELECT t.required_skills <@ p_skills
     AND t.id <> ALL (p_exclude)
     AND (p_priorities IS NULL OR t.priority = ANY (p_priorities))
     AND (p_types IS NULL OR t.type = ANY (p_types))
     AND (p_max IS NULL OR t.estimated_minutes IS NULL OR t.estimated_minutes <= p_max)
$$;

-- The task as its claimer reads it: swarm.task_json, plus the task's trace context as "traceparent"
-- (W3C; absent when the task has none) for the agent to continue its trace. An extra member, as
-- task_json's others beyond the spec's Task: clients ignore what they do not know. (Not in
-- swarm.task_json: its file also runs on databases from before V17, where creating tasks calls it.)
CREATE OR REPLACE FUNCTION swarm._claimed_task_json(t swarm.tasks) RETURNS jsonb LANGUAGE sql STABLE AS $$
  SELECT CASE WHEN t.trace_context IS NULL THEN swarm.task_json(t)
              ELSE swarm.task_json(t) || jsonb_build_object('traceparent', t.trace_context) END
$$;

-- (a generic plan serves every claim: the claim-order index scan does not depend on the filter values,
-- and re-planning each call for its parameters costs more than the claim itself)
CREATE OR REPLACE FUNCTION swarm.op_claim(p_req jsonb, p_now timestamptz, p_principal uuid, p_admin boolean)
RETURNS jsonb LANGUAGE plpgsql SET plan_cache_mode = force_generic_plan AS $$
DECLARE
  v_agent_id text := swarm._req_str(p_req, 'agentId', 'agentId');
  v_skills text[];
  v_priorities text[];
  v_types text[];
  v_exclude text[];
  v_max bigint;
  v_c record;
  v_id text;
  v_err jsonb;
  a swarm.agents;
  t swarm.tasks;
  v_event bigint;
BEGIN
  SELECT * INTO a FROM swarm.agents WHERE id = v_agent_id FOR NO KEY UPDATE;
  v_err := swarm._agent_error(a, v_agent_id, p_principal, p_admin);
  IF v_err IS NOT NULL THEN
    RETURN v_err;
  END IF;
  -- (an assignment, not SELECT … INTO: PL/pgSQL evaluates it without starting an executor)
  v_c := swarm._claim_criteria(p_req, a);
  v_skills := v_c.skills;
  v_priorities := v_c.priorities;
  v_types := v_c.types;
  v_exclude := v_c.exclude;
  v_max := v_c.max_minutes;

  -- first choice: tasks this agent has not failed before, in claim order, skipping rows other
  -- transactions are claiming right now
  SELECT c.id INTO v_id FROM swarm.tasks c
   WHERE c.status = 'ready'
     AND swarm._matches(c, v_skills, v_priorities, v_types, v_exclude, v_max)
     AND v_agent_id <> ALL (c.previous_agents)
   ORDER BY swarm.priority_rank(c.priority), c.created_at, c.seq
   LIMIT 1
   FOR UPDATE SKIP LOCKED;

  IF v_id IS NULL THEN
    -- a task this agent failed before, when no other agent could take it
    SELECT c.id INTO v_id FROM swarm.tasks c
     WHERE c.status = 'ready'
       AND cardinality(c.previous_agents) > 0 AND v_agent_id = ANY (c.previous_agents)
       AND swarm._matches(c, v_skills, v_priorities, v_types, v_exclude, v_max)
       AND NOT EXISTS (SELECT 1 FROM swarm.agents o
                        WHERE o.id <> v_agent_id AND o.status <> 'offline'
                          AND o.last_heartbeat > p_now - swarm.stale_after()
                          AND o.id <> ALL (c.previous_agents)
                          AND c.required_skills <@ o.skills)
     ORDER BY swarm.priority_rank(c.priority), c.created_at, c.seq
     LIMIT 1
     FOR UPDATE SKIP LOCKED;
  END IF;

  IF v_id IS NULL THEN
    -- all_tasks_claimed: matching work exists but other agents hold it (or are claiming it right now)
    RETURN swarm._ok(jsonb_build_object('success', false, 'reason',
      CASE WHEN EXISTS (SELECT 1 FROM swarm.tasks c
                         WHERE c.status IN ('claimed', 'in_progress')
                           AND swarm._matches(c, v_skills, v_priorities, v_types, v_exclude, v_max))
             -- ready and matching, yet not ours: other transactions are claiming them right now
             OR EXISTS (SELECT 1 FROM swarm.tasks c
                         WHERE c.status = 'ready' AND v_agent_id <> ALL (c.previous_agents)
                           AND swarm._matches(c, v_skills, v_priorities, v_types, v_exclude, v_max))
           THEN 'all_tasks_claimed' ELSE 'no_matching_tasks' END));
  END IF;

  UPDATE swarm.tasks
     SET status = 'claimed', assigned_agent = v_agent_id, claimed_at = p_now, started_at = NULL,
         progress = NULL, next_retry_at = NULL, updated_at = p_now
   WHERE id = v_id
  RETURNING * INTO t;
  UPDATE swarm.agents SET status = 'busy', current_task = v_id WHERE id = v_agent_id;
  -- (an assignment rather than PERFORM: see swarm._emit)
  v_event := swarm._emit('task', 'claimed', v_id, p_now,
                         jsonb_build_object('agentId', v_agent_id, 'priority', t.priority, 'retryCount', t.retry_count));
  RETURN swarm._ok(jsonb_build_object('success', true, 'task', swarm._claimed_task_json(t),
                                      'relatedLearnings', swarm.related_learnings(t)));
END $$;

-- The plain CLAIMs of a batch (no filter, one request per agent), set-based: one index scan finds
-- tasks for all of them and one UPDATE claims them, where op_claim runs its statements per request.
-- Each agent gets the task op_claim would give it had the claims run one after another in request
-- order: candidates come in claim order, and each goes to the first agent still without a task that
-- may take it (its skills, not in previousAgents). An agent this leaves without a task gets a row with
-- a NULL result: swarm.dispatch_batch runs that CLAIM alone through op_claim, which looks further and
-- also offers tasks the agent failed before, or answers why there is nothing.
-- p_items: swarm.dispatch_batch's; p_ords: the places in it (from 1) of these CLAIMs, in request order.
-- The agents' rows are locked (swarm.dispatch_batch). Returns each one's result and its events.
CREATE OR REPLACE FUNCTION swarm.claim_batch(p_items jsonb, p_ords integer[], p_now timestamptz)
RETURNS TABLE (o integer, result jsonb, events jsonb)
LANGUAGE plpgsql SET plan_cache_mode = force_generic_plan AS $$
DECLARE
  x record;
  c record;
  v_ords integer[] := '{}';
  v_ids text[] := '{}';
  v_agents swarm.agents[] := '{}';
  v_union text[] := '{}';
  v_taken boolean[];
  v_claim_tasks text[] := '{}';
  v_claim_agents text[] := '{}';
  v_claim_ords integer[] := '{}';
  v_next integer := 1;
  v_n integer;
BEGIN
  FOR x IN SELECT * FROM swarm._batch_callers(p_items, p_ords) LOOP
    result := x.refusal;
    IF result IS NOT NULL THEN
      o := x.o;
      events := NULL;
      RETURN NEXT;
    ELSE
      v_ords := array_append(v_ords, x.o);
      v_ids := array_append(v_ids, x.agent_id);
      v_agents := array_append(v_agents, x.agent);
      v_union := v_union || (x.agent).skills;
    END IF;
  END LOOP;
  v_n := cardinality(v_ids);
  IF v_n = 0 THEN
    RETURN;
  END IF;

  -- first choice, as op_claim's: ready tasks in claim order that one of these agents may take,
  -- skipping rows other transactions are claiming right now
  v_taken := array_fill(false, ARRAY[v_n]);
  FOR c IN SELECT t.id, t.required_skills, t.previous_agents FROM swarm.tasks t
            WHERE t.status = 'ready' AND t.required_skills <@ v_union AND NOT t.previous_agents @> v_ids
            ORDER BY swarm.priority_rank(t.priority), t.created_at, t.seq
            LIMIT v_n
              FOR UPDATE SKIP LOCKED LOOP
    FOR j IN v_next .. v_n LOOP
      IF NOT v_taken[j] AND c.required_skills <@ (v_agents[j]).skills AND v_ids[j] <> ALL (c.previous_agents) THEN
        v_taken[j] := true;
        v_claim_tasks := array_append(v_claim_tasks, c.id);
        v_claim_agents := array_append(v_claim_agents, v_ids[j]);
        v_claim_ords := array_append(v_claim_ords, v_ords[j]);
        EXIT;
      END IF;
    END LOOP;
    WHILE v_next <= v_n AND v_taken[v_next] LOOP
      v_next := v_next + 1;
    END LOOP;
  END LOOP;

  -- the agents left without a task: op_claim, alone
  IF cardinality(v_claim_ords) < v_n THEN
    RETURN QUERY SELECT v_ords[j], NULL::jsonb, NULL::jsonb FROM generate_subscripts(v_ords, 1) j WHERE NOT v_taken[j];
  END IF;

  RETURN QUERY
  WITH p AS (SELECT * FROM unnest(v_claim_tasks, v_claim_agents, v_claim_ords) p(task_id, agent_id, o)),
  claimed AS (
    UPDATE swarm.tasks t
       SET status = 'claimed', assigned_agent = p.agent_id, claimed_at = p_now, started_at = NULL,
           progress = NULL, next_retry_at = NULL, updated_at = p_now
      FROM p
     -- (= ANY as well as the join: the generic plan then finds the rows by primary key, however
     -- many it expects, instead of joining the whole table)
     WHERE t.id = p.task_id AND t.id = ANY (v_claim_tasks)
    RETURNING t AS task, p.o, p.agent_id),
  busy AS (
    UPDATE swarm.agents a SET status = 'busy', current_task = p.task_id
      FROM p
     WHERE a.id = p.agent_id AND a.id = ANY (v_claim_agents))
  SELECT k.o,
         swarm._ok(jsonb_build_object('success', true, 'task', swarm._claimed_task_json(k.task),
                                      'relatedLearnings', r.learnings)),
         jsonb_build_array(swarm._event('task', 'claimed', (k.task).id, p_now,
           jsonb_build_object('agentId', k.agent_id, 'priority', (k.task).priority, 'retryCount', (k.task).retry_count)))
    FROM claimed k CROSS JOIN LATERAL swarm.learnings_matching((k.task).words) r;
END $$;
