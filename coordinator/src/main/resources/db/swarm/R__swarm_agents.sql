-- Repeatable migration (Flyway R__): the swarm functions for agents: REGISTER, HEARTBEAT, commands, stale agents. Flyway runs this file again
-- whenever it changes, after the versioned migrations (tables, indexes) in this directory; edit the
-- function here instead of adding a versioned migration. CREATE OR REPLACE keeps a function's
-- signature: to change its arguments or return type, DROP it first in this file.
-- Function bodies are checked when called, not here, so the files may run in any order.
SET LOCAL check_function_bodies = off;

-- Swarm coordinator: agents (REGISTER, HEARTBEAT, operator commands, stale agents).

-- An agent stopped heartbeating: it goes offline, its claimed tasks fail as agent_crash (through
-- the FAIL rules: retry count, previousAgents, backoff) and its leases are released.
CREATE OR REPLACE FUNCTION swarm._crash_agent(a swarm.agents, p_now timestamptz) RETURNS integer LANGUAGE plpgsql AS $$
DECLARE
  t swarm.tasks;
  l record;
  v_failed integer := 0;
BEGIN
  FOR t IN SELECT * FROM swarm.tasks WHERE assigned_agent = a.id AND status IN ('claimed', 'in_progress')
           ORDER BY id FOR UPDATE LOOP
    PERFORM swarm._fail_task(t, a.id, jsonb_build_object(
      'type', 'agent_crash',
      'message', format('agent %s sent no heartbeat since %s', a.id, swarm._iso(a.last_heartbeat)),
      'recoverable', true), p_now);
    v_failed := v_failed + 1;
  END LOOP;
  FOR l IN DELETE FROM swarm.leases WHERE agent_id = a.id RETURNING file_path, task_id LOOP
    PERFORM swarm._emit('lease', 'released', l.file_path, p_now,
                        jsonb_build_object('agentId', a.id, 'taskId', l.task_id, 'reason', 'agent_offline'));
  END LOOP;
  UPDATE swarm.agents SET status = 'offline', offline_at = p_now, current_task = NULL,
                          tasks_failed = tasks_failed + v_failed
   WHERE id = a.id;
  PERFORM swarm._emit('agent', 'offline', a.id, p_now, jsonb_build_object(
    'lastHeartbeatAt', swarm._iso(a.last_heartbeat), 'failedTasks', v_failed));
  RETURN v_failed;
END $$;

-- Background job: every agent whose last heartbeat is older than 2 minutes. Rows another node is
-- handling are skipped, and a handled agent is offline, so no agent is processed twice.
CREATE OR REPLACE FUNCTION swarm.reap_stale_agents(p_now timestamptz DEFAULT date_trunc('milliseconds', clock_timestamp()),
                                        p_limit integer DEFAULT 100)
RETURNS integer LANGUAGE plpgsql AS $$
DECLARE
  a swarm.agents;
  v_count integer := 0;
BEGIN
  FOR a IN SELECT * FROM swarm.agents
            WHERE offline_at IS NULL AND status <> 'offline' AND last_heartbeat <= p_now - swarm.stale_after()
            ORDER BY last_heartbeat, id
            LIMIT p_limit
            FOR NO KEY UPDATE SKIP LOCKED LOOP
    PERFORM swarm._crash_agent(a, p_now);
    v_count := v_count + 1;
  END LOOP;
  RETURN v_count;
END $$;

CREATE OR REPLACE FUNCTION swarm.op_register(p_req jsonb, p_now timestamptz, p_principal uuid, p_admin boolean,
                                  p_secret_salt text)
RETURNS jsonb LANGUAGE plpgsql AS $$
DECLARE
  v_agent jsonb := swarm._obj(p_req, 'agent', 'agent');
  v_caps jsonb;
  v_machine jsonb;
  v_id text;
  v_max bigint;
  v_event text := 'registered';
  a swarm.agents;
BEGIN
  IF v_agent IS NULL THEN
    PERFORM swarm._invalid('agent', 'is required');
  END IF;
  v_id := swarm._req_str(v_agent, 'id', 'agent.id');
  v_caps := swarm._obj(v_agent, 'capabilities', 'agent.capabilities');
  IF v_caps IS NULL THEN
    PERFORM swarm._invalid('agent.capabilities', 'is required');
  END IF;
  IF swarm._str_array(v_caps, 'skills', 'agent.capabilities.skills') IS NULL THEN
    PERFORM swarm._invalid('agent.capabilities.skills', 'is required');
  END IF;
  v_max := coalesce(swarm._int(v_caps, 'maxTaskMinutes', 'agent.capabilities.maxTaskMinutes'), 60);
  PERFORM swarm._req_str(v_agent, 'name', 'agent.name');
  IF swarm._enum(v_agent, 'type', 'agent.type', ARRAY['claude-code', 'codex', 'gemini', 'browser', 'custom']) IS NULL THEN
    PERFORM swarm._invalid('agent.type', 'is required');
  END IF;
  v_machine := swarm._obj(v_agent, 'machine', 'agent.machine');
  IF v_machine IS NOT NULL THEN
    PERFORM swarm._req_str(v_machine, 'id', 'agent.machine.id'), swarm._req_str(v_machine, 'hostname', 'agent.machine.hostname');
    IF swarm._int(v_machine, 'pid', 'agent.machine.pid') IS NULL THEN
      PERFORM swarm._invalid('agent.machine.pid', 'is required');
    END IF;
  END IF;

  SELECT * INTO a FROM swarm.agents WHERE id = v_id FOR NO KEY UPDATE;
  IF FOUND THEN
    IF swarm._active(a, p_now) THEN
      RETURN swarm._err('agent_already_registered', 'conflict',
        format('agent %s is registered and active (last heartbeat %s); it may register again once its heartbeat is older than 2 minutes',
               v_id, swarm._iso(a.last_heartbeat)),
        jsonb_build_object('lastHeartbeatAt', swarm._iso(a.last_heartbeat)));
    END IF;
    IF p_principal IS NOT NULL AND NOT p_admin AND a.owner_principal IS DISTINCT FROM p_principal THEN
      RETURN swarm._err('agent_not_owned', 'forbidden', format('agent %s was registered by another principal', v_id));
    END IF;
    IF a.status <> 'offline' THEN
      -- stale, and not yet noticed by the reaper: the same clean-up first
      PERFORM swarm._crash_agent(a, p_now);
    END IF;
    -- commands queued for the process that died are not for the new one
    DELETE FROM swarm.agent_commands WHERE agent_id = v_id;
    v_event := 're-registered';
  END IF;

  INSERT INTO swarm.agents AS x (id, name, type, skills, max_task_minutes, can_run_tests, can_run_build,
                                 can_access_browser, machine, status, owner_principal, secret_salt,
                                 first_registered_at, registered_at, last_heartbeat)
  VALUES (v_id, swarm._req_str(v_agent, 'name', 'agent.name'),
          v_agent ->> 'type',
          swarm._skills(swarm._str_array(v_caps, 'skills', 'agent.capabilities.skills')), v_max,
          coalesce(swarm._bool(v_caps, 'canRunTests', 'agent.capabilities.canRunTests'), true),
          coalesce(swarm._bool(v_caps, 'canRunBuild', 'agent.capabilities.canRunBuild'), true),
          coalesce(swarm._bool(v_caps, 'canAccessBrowser', 'agent.capabilities.canAccessBrowser'), false),
          v_machine, 'idle', p_principal, p_secret_salt, p_now, p_now, p_now)
  ON CONFLICT (id) DO UPDATE
     SET name = EXCLUDED.name, type = EXCLUDED.type, skills = EXCLUDED.skills,
         max_task_minutes = EXCLUDED.max_task_minutes, can_run_tests = EXCLUDED.can_run_tests,
         can_run_build = EXCLUDED.can_run_build, can_access_browser = EXCLUDED.can_access_browser,
         machine = EXCLUDED.machine, status = 'idle', secret_salt = EXCLUDED.secret_salt,
         owner_principal = coalesce(x.owner_principal, EXCLUDED.owner_principal),
         registered_at = EXCLUDED.registered_at, last_heartbeat = EXCLUDED.last_heartbeat,
         current_task = NULL, metrics = NULL, offline_at = NULL
   -- a concurrent first registration of the same id won: this one is rejected below
   WHERE v_event = 're-registered'
  RETURNING * INTO a;
  IF a.id IS NULL THEN
    RETURN swarm._err('agent_already_registered', 'conflict', format('agent %s was registered concurrently', v_id));
  END IF;
  PERFORM swarm._emit('agent', v_event, v_id, p_now, jsonb_build_object(
    'name', a.name, 'type', a.type, 'skills', to_jsonb(a.skills)));
  RETURN swarm._ok(jsonb_build_object('success', true, 'registeredAt', swarm._iso(p_now)));
END $$;

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
