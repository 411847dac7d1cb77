-- Repeatable migration (Flyway R__): the swarm functions for the entry point of every transport, batches, housekeeping and HMAC. Flyway runs this file again
-- whenever it changes, after the versioned migrations (tables, indexes) in this directory; edit the
-- function here instead of adding a versioned migration. CREATE OR REPLACE keeps a function's
-- signature: to change its arguments or return type, DROP it first in this file.
-- Function bodies are checked when called, not here, so the files may run in any order.
SET LOCAL check_function_bodies = off;

-- Swarm coordinator: the one entry point of every transport, batches, and housekeeping.
--
-- A request is the spec's JSON: {"protocolVersion": "1.0", "operation": "CLAIM", "agentId": ..., ...}.
-- Operations: REGISTER, HEARTBEAT, CLAIM, PROGRESS, COMPLETE, FAIL, SEND_MESSAGE, RECEIVE_MESSAGES,
-- ACQUIRE_LEASE, RELEASE_LEASE, and ACK_MESSAGE ({agentId, messageId}).

-- Runs one request. Returns {"ok": response} or {"error": {...}}; raises only on malformed input.
-- p_principal: the authenticated principal acting (NULL for a trusted transport: the file transport
-- or direct database access). p_options: {"admin": bool, "secretSalt": text, "rate": {bucket, limit}}.
CREATE OR REPLACE FUNCTION swarm.dispatch(p_request jsonb,
                               p_now timestamptz DEFAULT date_trunc('milliseconds', clock_timestamp()),
                               p_principal uuid DEFAULT NULL,
                               p_options jsonb DEFAULT '{}'::jsonb)
RETURNS jsonb LANGUAGE plpgsql AS $$
DECLARE
  v_admin boolean := coalesce((p_options ->> 'admin')::boolean, false);
  v_operation text;
  v_err jsonb;
BEGIN
  IF p_request IS NULL OR jsonb_typeof(p_request) <> 'object' THEN
    RETURN swarm._err('invalid_operation', 'invalid', 'a request is a JSON object');
  END IF;
  IF p_request -> 'protocolVersion' IS DISTINCT FROM '"1.0"'::jsonb THEN
    RETURN swarm._err('unsupported_protocol_version', 'invalid',
      format('protocolVersion %s is not supported; this coordinator speaks "1.0"',
             coalesce((p_request -> 'protocolVersion')::text, '(missing)')),
      jsonb_build_object('field', 'protocolVersion'));
  END IF;
  v_operation := p_request ->> 'operation';
  IF v_operation IS NULL OR v_operation NOT IN ('REGISTER', 'HEARTBEAT', 'CLAIM', 'PROGRESS', 'COMPLETE', 'FAIL',
      'SEND_MESSAGE', 'RECEIVE_MESSAGES', 'ACQUIRE_LEASE', 'RELEASE_LEASE', 'ACK_MESSAGE') THEN
    RETURN swarm._err('invalid_operation', 'invalid',
      format('operation %s is not one of REGISTER, HEARTBEAT, CLAIM, PROGRESS, COMPLETE, FAIL, SEND_MESSAGE, '
             'RECEIVE_MESSAGES, ACQUIRE_LEASE, RELEASE_LEASE, ACK_MESSAGE', coalesce(v_operation, '(missing)')),
      jsonb_build_object('field', 'operation'));
  END IF;
  -- (a request not rate limited, the usual case with the limits off, skips even the call)
  IF p_options ? 'rate' THEN
    v_err := swarm._rate_check(p_options -> 'rate', p_now);
    IF v_err IS NOT NULL THEN
      RETURN v_err;
    END IF;
  END IF;
  RETURN CASE v_operation
    WHEN 'REGISTER' THEN swarm.op_register(p_request, p_now, p_principal, v_admin, p_options ->> 'secretSalt')
    WHEN 'HEARTBEAT' THEN swarm.op_heartbeat(p_request, p_now, p_principal, v_admin)
    WHEN 'CLAIM' THEN swarm.op_claim(p_request, p_now, p_principal, v_admin)
    WHEN 'PROGRESS' THEN swarm.op_progress(p_request, p_now, p_principal, v_admin)
    WHEN 'COMPLETE' THEN swarm.op_complete(p_request, p_now, p_principal, v_admin)
    WHEN 'FAIL' THEN swarm.op_fail(p_request, p_now, p_principal, v_admin)
    WHEN 'SEND_MESSAGE' THEN swarm.op_send_message(p_request, p_now, p_principal, v_admin)
    WHEN 'RECEIVE_MESSAGES' THEN swarm.op_receive_messages(p_request, p_now, p_principal, v_admin)
    WHEN 'ACQUIRE_LEASE' THEN swarm.op_acquire_lease(p_request, p_now, p_principal, v_admin)
    WHEN 'RELEASE_LEASE' THEN swarm.op_release_lease(p_request, p_now, p_principal, v_admin)
    ELSE swarm.op_ack_message(p_request, p_now, p_principal, v_admin)
  END;
END $$;

-- Direct database access: runs one request as a trusted caller and returns the spec's response.
-- Errors raise SQLSTATE SW400 (invalid), SW403, SW404, SW409 or SW429 with the message
-- "<code>: <detail>" and the error as JSON in the exception's DETAIL.
CREATE OR REPLACE FUNCTION swarm.execute(p_request jsonb,
                              p_now timestamptz DEFAULT date_trunc('milliseconds', clock_timestamp()))
RETURNS jsonb LANGUAGE plpgsql AS $$
DECLARE v_result jsonb := swarm.dispatch(p_request, p_now, NULL, '{}'::jsonb);
BEGIN
  IF v_result ? 'error' THEN
    PERFORM swarm._raise(v_result -> 'error');
  END IF;
  RETURN v_result -> 'ok';
END $$;

-- Runs many requests in one transaction, in order, each with its own result (as swarm.dispatch).
-- p_items: [{"request": {...}, "principal": "<uuid>"|null, "options": {...}}, ...].
-- Returns {"results": [{"ok"}|{"error"}, ...], "events": [...]}. With p_capture_events the events of
-- these requests come back in "events" (for the caller to publish) instead of going to the outbox.
-- The agents named are locked first, in id order, so concurrent batches never deadlock on them.
CREATE OR REPLACE FUNCTION swarm.dispatch_batch(p_items jsonb,
                                     p_now timestamptz DEFAULT date_trunc('milliseconds', clock_timestamp()),
                                     p_capture_events boolean DEFAULT false)
RETURNS jsonb LANGUAGE plpgsql AS $$
DECLARE
  v_item jsonb;
  -- (an array, appended in place, rather than a jsonb value copied whole for each result)
  v_results jsonb[] := '{}';
  v_captured text[] := '{}';
  v_events jsonb := '[]'::jsonb;
  v_setting text;
BEGIN
  IF p_capture_events THEN
    PERFORM set_config('swarm.capture', 'on', true), set_config('swarm.captured', '', true);
  END IF;
  PERFORM 1 FROM swarm.agents
   WHERE id IN (SELECT coalesce(i -> 'request' ->> 'agentId', i -> 'request' -> 'agent' ->> 'id')
                  FROM jsonb_array_elements(p_items) i)
   ORDER BY id
   FOR NO KEY UPDATE;
  FOR v_item IN SELECT i FROM jsonb_array_elements(p_items) WITH ORDINALITY x(i, o) ORDER BY o LOOP
    v_results := v_results || swarm.dispatch(
      v_item -> 'request', p_now, (v_item ->> 'principal')::uuid, coalesce(v_item -> 'options', '{}'::jsonb));
    IF p_capture_events THEN
      -- moved out after each request, so the setting stays short
      v_captured := v_captured || current_setting('swarm.captured');
      -- (an assignment rather than PERFORM: see swarm._emit)
      v_setting := set_config('swarm.captured', '', true);
    END IF;
  END LOOP;
  IF p_capture_events THEN
    SELECT coalesce(jsonb_agg(line::jsonb ORDER BY o), '[]'::jsonb) INTO v_events
      FROM unnest(string_to_array(array_to_string(v_captured, ''), E'\n')) WITH ORDINALITY x(line, o)
     WHERE line <> '';
    -- the task history of the captured events, in the same transaction (the outbox's trigger does
    -- this for events that are not captured): every task event, and lease and message events naming a task
    INSERT INTO swarm.task_history (task_id, seq, kind, event, at, data)
    SELECT CASE WHEN e ->> 'kind' = 'task' THEN e ->> 'id' ELSE e -> 'data' ->> 'taskId' END,
           (e ->> 'seq')::bigint, e ->> 'kind', e ->> 'event', (e ->> 'at')::timestamptz, e -> 'data'
      FROM jsonb_array_elements(v_events) e
     WHERE e ->> 'kind' = 'task' OR (e ->> 'kind' IN ('lease', 'message') AND e -> 'data' ->> 'taskId' IS NOT NULL);
    PERFORM set_config('swarm.capture', 'off', true);
  END IF;
  RETURN jsonb_build_object('results', to_jsonb(v_results), 'events', v_events);
END $$;

-- ---- background jobs -----------------------------------------------------------------------

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


CREATE OR REPLACE FUNCTION swarm.signature_record(p_agent_id text, p_signature text, p_expires_at timestamptz)
RETURNS TABLE (fresh boolean, owner_active boolean, secret_salt text) LANGUAGE sql AS $$
  WITH seen AS (
    INSERT INTO swarm.seen_signatures (agent_id, signature, expires_at)
    SELECT p_agent_id, p_signature, p_expires_at WHERE EXISTS (SELECT 1 FROM swarm.agents WHERE id = p_agent_id)
    ON CONFLICT DO NOTHING RETURNING 1)
  SELECT EXISTS (SELECT 1 FROM seen), coalesce(p.status = 'approved' AND p.deleted_at IS NULL, false), a.secret_salt
    FROM swarm.agents a LEFT JOIN auth.principals p ON p.id = a.owner_principal
   WHERE a.id = p_agent_id
$$;
