-- Repeatable migration (Flyway R__): the swarm operation CLAIM, its checks and its effect. Flyway runs this file again
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
-- CLAIM's first checks, which swarm.dispatch runs before the signed-agent check and the rate limit:
-- the agentId's format, the filter's list sizes and ids, maxMinutes' range. The error of the first member that breaks one, or NULL.
-- JSON types, required members and enumerations are checked after them, by the operation itself.
CREATE OR REPLACE FUNCTION swarm.check_claim(p_req jsonb, p_options jsonb DEFAULT '{}'::jsonb)
RETURNS jsonb LANGUAGE sql STABLE AS $$
  SELECT coalesce(
    swarm._c_id(p_req, 'agentId', 'agentId'),
    swarm._c_list(p_req -> 'filter', 'skills', 'filter.skills', 64, 64),
    swarm._c_counted(p_req -> 'filter', 'priorities', 'filter.priorities', 16),
    swarm._c_counted(p_req -> 'filter', 'types', 'filter.types', 16),
    swarm._c_list(p_req -> 'filter', 'excludeIds', 'filter.excludeIds', 1000, 128, true),
    swarm._c_within(p_req -> 'filter', 'maxMinutes', 'filter.maxMinutes', 1, 100000))
$$;

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

-- CLAIM, written once: every CLAIM runs through swarm.claim_batch, a single one (swarm.op_claim) as a
-- batch of one. The batch's plain CLAIMs (no filter) are served set-based first: one index scan finds
-- tasks for all of them and one UPDATE claims them. Each agent gets the task it would get had the
-- claims run one after another in request order: candidates come in claim order, and each goes to the
-- first agent still without a task that may take it (its skills, not in previousAgents). Then, in
-- request order, each CLAIM this left without a task (and each with a filter) looks on its own, the
-- tasks chosen before it aside: a first choice beyond the candidates looked at, else a task it failed
-- before when no other agent could take it, else the reason there is nothing. The rows come back in the
-- order the claims took effect: the set-based ones, then the others (swarm.dispatch_batch reports it).
-- p_items: swarm.dispatch_batch's; p_ords: the places in it (from 1) of these CLAIMs, in request order.
-- The agents' rows are locked (by swarm.dispatch_batch or swarm.op_claim). Returns each one's result
-- and its events (to emit).
-- (a generic plan serves every claim: the claim-order index scan does not depend on the filter values,
-- and re-planning each call for its parameters costs more than the claim itself)
CREATE OR REPLACE FUNCTION swarm.claim_batch(p_items jsonb, p_ords integer[], p_now timestamptz)
RETURNS TABLE (o integer, result jsonb, events jsonb)
LANGUAGE plpgsql SET plan_cache_mode = force_generic_plan AS $$
DECLARE
  x record;
  c record;
  v_c record;
  v_id text;
  v_agent_id text;
  v_ords integer[] := '{}';
  v_ids text[] := '{}';
  v_agents swarm.agents[] := '{}';
  v_reqs jsonb[] := '{}';
  v_plain boolean[] := '{}';
  v_union text[] := '{}';
  v_plain_ids text[] := '{}';
  v_taken boolean[];
  v_claim_tasks text[] := '{}';
  v_claim_agents text[] := '{}';
  v_claim_ords integer[] := '{}';
  v_reason_ords integer[] := '{}';
  v_reasons text[] := '{}';
  v_next integer := 1;
  v_n integer;
  v_plain_n integer := 0;
  v_set_n integer;
BEGIN
  FOR x IN SELECT * FROM swarm._batch_callers(p_items, p_ords) LOOP
    -- (an assignment: raises on a bad agentId, as every request's reader does)
    v_agent_id := swarm._req_str(x.request, 'agentId', 'agentId');
    result := x.refusal;
    IF result IS NOT NULL THEN
      o := x.o;
      events := NULL;
      RETURN NEXT;
    ELSE
      v_ords := array_append(v_ords, x.o);
      v_ids := array_append(v_ids, x.agent_id);
      v_agents := array_append(v_agents, x.agent);
      v_reqs := array_append(v_reqs, x.request);
      IF coalesce(x.request -> 'filter', 'null') = 'null' THEN
        v_plain := array_append(v_plain, true);
        v_plain_n := v_plain_n + 1;
        v_union := v_union || (x.agent).skills;
        v_plain_ids := array_append(v_plain_ids, x.agent_id);
      ELSE
        v_plain := array_append(v_plain, false);
      END IF;
    END IF;
  END LOOP;
  v_n := cardinality(v_ids);
  IF v_n = 0 THEN
    RETURN;
  END IF;

  -- the plain CLAIMs, set-based: ready tasks in claim order that one of these agents may take,
  -- skipping rows other transactions are claiming right now
  v_taken := array_fill(false, ARRAY[v_n]);
  WHILE v_next <= v_n AND NOT v_plain[v_next] LOOP
    v_next := v_next + 1;
  END LOOP;
  IF v_plain_n > 0 THEN
    FOR c IN SELECT t.id, t.required_skills, t.previous_agents FROM swarm.tasks t
              WHERE t.status = 'ready' AND t.required_skills <@ v_union AND NOT t.previous_agents @> v_plain_ids
              ORDER BY swarm.priority_rank(t.priority), t.created_at, t.seq
              LIMIT v_plain_n
                FOR UPDATE SKIP LOCKED LOOP
      FOR j IN v_next .. v_n LOOP
        IF v_plain[j] AND NOT v_taken[j] AND c.required_skills <@ (v_agents[j]).skills
           AND v_ids[j] <> ALL (c.previous_agents) THEN
          v_taken[j] := true;
          v_claim_tasks := array_append(v_claim_tasks, c.id);
          v_claim_agents := array_append(v_claim_agents, v_ids[j]);
          v_claim_ords := array_append(v_claim_ords, v_ords[j]);
          EXIT;
        END IF;
      END LOOP;
      WHILE v_next <= v_n AND (v_taken[v_next] OR NOT v_plain[v_next]) LOOP
        v_next := v_next + 1;
      END LOOP;
    END LOOP;
  END IF;
  v_set_n := cardinality(v_claim_ords);

  -- the others, one by one in request order, the tasks chosen so far aside (as if claimed already)
  IF v_set_n < v_n THEN
    FOR j IN 1 .. v_n LOOP
      CONTINUE WHEN v_taken[j];
      v_agent_id := v_ids[j];
      -- (an assignment rather than SELECT … INTO: PL/pgSQL evaluates it without starting an executor)
      v_c := swarm._claim_criteria(v_reqs[j], v_agents[j]);

      -- first choice: tasks this agent has not failed before, in claim order
      SELECT t.id INTO v_id FROM swarm.tasks t
       WHERE t.status = 'ready'
         AND swarm._matches(t, v_c.skills, v_c.priorities, v_c.types, v_c.exclude, v_c.max_minutes)
         AND v_agent_id <> ALL (t.previous_agents)
         AND t.id <> ALL (v_claim_tasks)
       ORDER BY swarm.priority_rank(t.priority), t.created_at, t.seq
       LIMIT 1
       FOR UPDATE SKIP LOCKED;

      IF v_id IS NULL THEN
        -- a task this agent failed before, when no other agent could take it
        SELECT t.id INTO v_id FROM swarm.tasks t
         WHERE t.status = 'ready'
           AND cardinality(t.previous_agents) > 0 AND v_agent_id = ANY (t.previous_agents)
           AND swarm._matches(t, v_c.skills, v_c.priorities, v_c.types, v_c.exclude, v_c.max_minutes)
           AND t.id <> ALL (v_claim_tasks)
           AND NOT EXISTS (SELECT 1 FROM swarm.agents a
                            WHERE a.id <> v_agent_id AND a.status <> 'offline'
                              AND a.last_heartbeat > p_now - swarm.stale_after()
                              AND a.id <> ALL (t.previous_agents)
                              AND t.required_skills <@ a.skills)
         ORDER BY swarm.priority_rank(t.priority), t.created_at, t.seq
         LIMIT 1
         FOR UPDATE SKIP LOCKED;
      END IF;

      IF v_id IS NOT NULL THEN
        v_claim_tasks := array_append(v_claim_tasks, v_id);
        v_claim_agents := array_append(v_claim_agents, v_agent_id);
        v_claim_ords := array_append(v_claim_ords, v_ords[j]);
      ELSE
        -- all_tasks_claimed: matching work exists but other agents hold it (or are claiming it right now)
        v_reason_ords := array_append(v_reason_ords, v_ords[j]);
        v_reasons := array_append(v_reasons,
          CASE WHEN EXISTS (SELECT 1 FROM swarm.tasks t
                             WHERE t.status IN ('claimed', 'in_progress')
                               AND swarm._matches(t, v_c.skills, v_c.priorities, v_c.types, v_c.exclude, v_c.max_minutes))
                 -- chosen in this batch: claimed by the time this request takes effect
                 OR EXISTS (SELECT 1 FROM swarm.tasks t
                             WHERE t.id = ANY (v_claim_tasks)
                               AND swarm._matches(t, v_c.skills, v_c.priorities, v_c.types, v_c.exclude, v_c.max_minutes))
                 -- ready and matching, yet not ours: other transactions are claiming them right now
                 OR EXISTS (SELECT 1 FROM swarm.tasks t
                             WHERE t.status = 'ready' AND v_agent_id <> ALL (t.previous_agents)
                               AND swarm._matches(t, v_c.skills, v_c.priorities, v_c.types, v_c.exclude, v_c.max_minutes))
               THEN 'all_tasks_claimed' ELSE 'no_matching_tasks' END);
      END IF;
    END LOOP;
  END IF;

  -- every task chosen, claimed in one statement; the rows in the order the claims took effect
  RETURN QUERY
  WITH p AS (SELECT * FROM unnest(v_claim_tasks, v_claim_agents, v_claim_ords) WITH ORDINALITY p(task_id, agent_id, o, n)),
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
  SELECT r.o, r.result, r.events
    FROM (SELECT k.o, (k.o <> ALL (v_claim_ords[1:v_set_n])) AS alone,
                 swarm._ok(jsonb_build_object('success', true, 'task', swarm._claimed_task_json(k.task),
                                              'relatedLearnings', l.learnings)) AS result,
                 jsonb_build_array(swarm._event('task', 'claimed', (k.task).id, p_now,
                   jsonb_build_object('agentId', k.agent_id, 'priority', (k.task).priority,
                                      'retryCount', (k.task).retry_count))) AS events
            FROM claimed k CROSS JOIN LATERAL swarm.learnings_matching((k.task).words) l
          UNION ALL
          SELECT s.o, true, swarm._ok(jsonb_build_object('success', false, 'reason', s.reason)), NULL
            FROM unnest(v_reason_ords, v_reasons) s(o, reason)) r
   ORDER BY r.alone, r.o;
END $$;

-- CLAIM alone: the agent's row locked (as swarm.dispatch_batch locks a batch's), then swarm.claim_batch
-- with this one request
CREATE OR REPLACE FUNCTION swarm.op_claim(p_req jsonb, p_now timestamptz, p_principal uuid, p_admin boolean)
RETURNS jsonb LANGUAGE plpgsql AS $$
DECLARE
  r record;
  v_emitted integer;
BEGIN
  PERFORM 1 FROM swarm.agents WHERE id = swarm._req_str(p_req, 'agentId', 'agentId') FOR NO KEY UPDATE;
  SELECT * INTO r FROM swarm.claim_batch(
    jsonb_build_array(jsonb_build_object('request', p_req, 'principal', p_principal,
                                         'options', jsonb_build_object('admin', p_admin))), '{1}', p_now);
  v_emitted := swarm._emit_events(r.events);
  RETURN r.result;
END $$;
