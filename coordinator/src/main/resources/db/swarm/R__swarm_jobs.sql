-- Repeatable migration (Flyway R__): the swarm functions for the background jobs: stale agents, due retries, expired leases and messages, housekeeping, the event outbox. Flyway runs this file again
-- whenever it changes, after the versioned migrations (tables, indexes) in this directory; edit the
-- function here instead of adding a versioned migration. CREATE OR REPLACE keeps a function's
-- signature: to change its arguments or return type, DROP it first in this file.
-- Function bodies are checked when called, not here, so the files may run in any order.
SET LOCAL check_function_bodies = off;

-- Swarm coordinator: the background jobs every node runs (jobs/SwarmJobs), each safe to run on
-- several nodes at once.

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

-- Moves pending_retry tasks whose backoff has passed back to ready (each task once, cluster-wide).
CREATE OR REPLACE FUNCTION swarm.release_due_retries(p_now timestamptz DEFAULT date_trunc('milliseconds', clock_timestamp()),
                                          p_limit integer DEFAULT 500)
RETURNS integer LANGUAGE sql AS $$
  WITH due AS (
    UPDATE swarm.tasks SET status = 'ready', next_retry_at = NULL, updated_at = p_now
     WHERE id IN (SELECT id FROM swarm.tasks WHERE status = 'pending_retry' AND next_retry_at <= p_now
                   ORDER BY next_retry_at LIMIT p_limit FOR UPDATE SKIP LOCKED)
       AND status = 'pending_retry'
    RETURNING id, retry_count),
  ev AS (
    INSERT INTO swarm.events (kind, event, entity_id, at, data)
    SELECT 'task', 'retry_ready', d.id, p_now, jsonb_build_object('status', 'ready', 'retryCount', d.retry_count)
      FROM due d RETURNING 1)
  SELECT count(*)::integer FROM ev
$$;

-- Background job: releases leases past their expiry (skipping rows another node is handling).
CREATE OR REPLACE FUNCTION swarm.sweep_expired_leases(p_now timestamptz DEFAULT date_trunc('milliseconds', clock_timestamp()),
                                           p_limit integer DEFAULT 500)
RETURNS integer LANGUAGE sql AS $$
  WITH gone AS (
    DELETE FROM swarm.leases WHERE file_path IN (
      SELECT file_path FROM swarm.leases WHERE expires_at <= p_now
       ORDER BY expires_at LIMIT p_limit FOR UPDATE SKIP LOCKED)
      AND expires_at <= p_now
    RETURNING file_path, agent_id, task_id, expires_at),
  ev AS (
    INSERT INTO swarm.events (kind, event, entity_id, at, data)
    SELECT 'lease', 'expired', g.file_path, p_now,
           jsonb_build_object('agentId', g.agent_id, 'taskId', g.task_id, 'expiredAt', swarm._iso(g.expires_at))
      FROM gone g RETURNING 1)
  SELECT count(*)::integer FROM ev
$$;

-- Background job: deletes messages past their expiry, and any older than the retention period.
CREATE OR REPLACE FUNCTION swarm.expire_messages(p_now timestamptz DEFAULT date_trunc('milliseconds', clock_timestamp()),
                                      p_retention interval DEFAULT interval '7 days',
                                      p_limit integer DEFAULT 500)
RETURNS integer LANGUAGE sql AS $$
  WITH gone AS (
    DELETE FROM swarm.messages WHERE id IN (
      SELECT id FROM swarm.messages
       WHERE (expires_at IS NOT NULL AND expires_at <= p_now) OR created_at < p_now - p_retention
       LIMIT p_limit
       FOR UPDATE SKIP LOCKED)
    RETURNING id, type, from_agent, to_agent, expires_at),
  ev AS (
    INSERT INTO swarm.events (kind, event, entity_id, at, data)
    SELECT 'message', 'expired', g.id::text, p_now,
           jsonb_strip_nulls(jsonb_build_object('from', g.from_agent, 'to', g.to_agent, 'type', g.type,
                                                'expiresAt', swarm._iso(g.expires_at)))
      FROM gone g RETURNING 1)
  SELECT count(*)::integer FROM ev
$$;

-- Forgets rate-limit windows and replay-protection signatures that no longer matter.
CREATE OR REPLACE FUNCTION swarm.sweep_housekeeping(p_now timestamptz DEFAULT date_trunc('milliseconds', clock_timestamp()))
RETURNS integer LANGUAGE sql AS $$
  WITH w AS (DELETE FROM swarm.rate_windows WHERE window_start < p_now - interval '2 minutes' RETURNING 1),
       s AS (DELETE FROM swarm.seen_signatures WHERE expires_at < p_now RETURNING 1)
  SELECT ((SELECT count(*) FROM w) + (SELECT count(*) FROM s))::integer
$$;

-- Takes the oldest unpublished events (skipping those another node is taking), deleting them.
CREATE OR REPLACE FUNCTION swarm.take_events(p_limit integer DEFAULT 500)
RETURNS TABLE (seq bigint, kind text, event text, entity_id text, at timestamptz, data jsonb)
LANGUAGE sql AS $$
  DELETE FROM swarm.events e WHERE e.seq IN (
    SELECT x.seq FROM swarm.events x ORDER BY x.seq LIMIT p_limit FOR UPDATE SKIP LOCKED)
  RETURNING e.seq, e.kind, e.event, e.entity_id, e.at, e.data
$$;
