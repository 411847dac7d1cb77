-- Repeatable migration (Flyway R__): the swarm operation REGISTER, its checks and its effect. Flyway runs this file again
-- whenever it changes, after the versioned migrations (tables, indexes) in this directory; edit the
-- function here instead of adding a versioned migration. CREATE OR REPLACE keeps a function's
-- signature: to change its arguments or return type, DROP it first in this file.
-- Function bodies are checked when called, not here, so the files may run in any order.
SET LOCAL check_function_bodies = off;

-- Swarm coordinator: REGISTER. An agent registers (again) with its capabilities; the row is created or
-- updated, and a principal that is not an admin may only register an agent it owns.

-- REGISTER's first checks, which swarm.dispatch runs before the signed-agent check and the rate limit:
-- the agent's id format, the name's length (its characters: platform's TextRules, in the coordinator),
-- the skills' number and lengths, maxTaskMinutes' range and the machine's members. The error of the first member that breaks one, or NULL.
-- JSON types, required members and enumerations are checked after them, by the operation itself.
CREATE OR REPLACE FUNCTION swarm.check_register(p_req jsonb, p_options jsonb DEFAULT '{}'::jsonb)
RETURNS jsonb LANGUAGE sql STABLE AS $$
  SELECT coalesce(
    swarm._c_id(p_req -> 'agent', 'id', 'agent.id'),
    swarm._c_sized(p_req -> 'agent', 'name', 'agent.name', 200),
    swarm._c_java(p_options, 'agent.name'),
    swarm._c_list(p_req -> 'agent' -> 'capabilities', 'skills', 'agent.capabilities.skills', 64, 64),
    swarm._c_within(p_req -> 'agent' -> 'capabilities', 'maxTaskMinutes', 'agent.capabilities.maxTaskMinutes', 1, 100000),
    swarm._c_sized(p_req -> 'agent' -> 'machine', 'id', 'agent.machine.id', 128),
    swarm._c_sized(p_req -> 'agent' -> 'machine', 'hostname', 'agent.machine.hostname', 200),
    swarm._c_within(p_req -> 'agent' -> 'machine', 'pid', 'agent.machine.pid', 0, 2147483647))
$$;

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
    -- stored as the protocol has it: other members are left out
    v_machine := jsonb_build_object('id', v_machine -> 'id', 'hostname', v_machine -> 'hostname', 'pid', v_machine -> 'pid');
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
