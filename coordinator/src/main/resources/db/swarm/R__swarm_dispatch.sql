-- Repeatable migration (Flyway R__): the swarm functions for the entry point of every transport, batches and HMAC. Flyway runs this file again
-- whenever it changes, after the versioned migrations (tables, indexes) in this directory; edit the
-- function here instead of adding a versioned migration. CREATE OR REPLACE keeps a function's
-- signature: to change its arguments or return type, DROP it first in this file.
-- Function bodies are checked when called, not here, so the files may run in any order.
SET LOCAL check_function_bodies = off;

-- Swarm coordinator: the one entry point of every transport, and batches.
--
-- A request is the spec's JSON: {"protocolVersion": "1.0", "operation": "CLAIM", "agentId": ..., ...}.
-- Operations: REGISTER, HEARTBEAT, CLAIM, PROGRESS, COMPLETE, FAIL, SEND_MESSAGE, RECEIVE_MESSAGES,
-- ACQUIRE_LEASE, RELEASE_LEASE, and ACK_MESSAGE ({agentId, messageId}), each in its own file
-- (R__swarm_op_<operation>.sql, function swarm.op_<operation>).

-- An operation's first checks (swarm.check_<operation>, in the operation's file): the error of the first
-- member whose size, format or range is wrong, or NULL. p_options as swarm.dispatch's (javaProblems).
CREATE OR REPLACE FUNCTION swarm.check(p_operation text, p_request jsonb, p_options jsonb DEFAULT '{}'::jsonb)
RETURNS jsonb LANGUAGE sql STABLE AS $$
  SELECT CASE p_operation
    WHEN 'REGISTER' THEN swarm.check_register(p_request, p_options)
    WHEN 'HEARTBEAT' THEN swarm.check_heartbeat(p_request, p_options)
    WHEN 'CLAIM' THEN swarm.check_claim(p_request, p_options)
    WHEN 'PROGRESS' THEN swarm.check_progress(p_request, p_options)
    WHEN 'COMPLETE' THEN swarm.check_complete(p_request, p_options)
    WHEN 'FAIL' THEN swarm.check_fail(p_request, p_options)
    WHEN 'SEND_MESSAGE' THEN swarm.check_send_message(p_request, p_options)
    WHEN 'RECEIVE_MESSAGES' THEN swarm.check_receive_messages(p_request, p_options)
    WHEN 'ACQUIRE_LEASE' THEN swarm.check_acquire_lease(p_request, p_options)
    WHEN 'RELEASE_LEASE' THEN swarm.check_release_lease(p_request, p_options)
    WHEN 'ACK_MESSAGE' THEN swarm.check_ack_message(p_request, p_options)
  END
$$;

-- Why a request signed by p_signer (HMAC) may not go on, or NULL: a signed request acts only as the
-- agent that signed it, and a REGISTER needs a bearer token (the HMAC secret is REGISTER's answer).
-- A request that names no agent as a string goes on: the operation rejects it (400, not a mismatch).
CREATE OR REPLACE FUNCTION swarm._signer_error(p_operation text, p_request jsonb, p_signer text)
RETURNS jsonb LANGUAGE sql STABLE AS $$
  SELECT CASE
    WHEN p_signer IS NULL THEN NULL
    WHEN p_operation = 'REGISTER' THEN
      swarm._err('bearer_required', 'unauthenticated',
                 'REGISTER needs a bearer token; HMAC signing starts with the secret REGISTER returns')
    WHEN jsonb_typeof(p_request -> 'agentId') = 'string' AND p_request ->> 'agentId' <> p_signer THEN
      swarm._err('agent_mismatch', 'forbidden',
                 format('the request is signed by agent %s but acts for agent %s; a signed agent acts only as itself',
                        p_signer, p_request ->> 'agentId'),
                 jsonb_build_object('field', 'agentId'))
  END
$$;

-- Runs one request. Returns {"ok": response} or {"error": {...}}; raises only on malformed input.
-- p_principal: the authenticated principal acting (NULL for a trusted transport: the file transport
-- or direct database access). p_options: {"admin": bool, "secretSalt": text, "rate": {bucket, limit},
-- "signer": the agent an HMAC-signed request was signed by, "javaProblems": {path: problem}}.
--
-- A request's checks answer in this order (ErrorOrderTest): the protocol version and the operation;
-- the operation's sizes, formats and ranges (swarm.check_<operation>, which also answers the problems
-- the coordinator found where SQL cannot look: ProtocolRequests.javaProblems); the signed agent (a
-- signed request acts only as its agent, and a REGISTER is never signed); the rate limit; then the
-- operation itself, which checks JSON types, required members and enumerations before its effect.
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
  v_err := swarm.check(v_operation, p_request, p_options);
  IF v_operation = 'ACQUIRE_LEASE' THEN
    -- seed 001: a file another agent holds is refused with heldBy/heldUntil whatever else is wrong
    -- with the request, so when the path is usable (which file it names is the first thing the
    -- operation reads) the problem goes on with the request, for swarm.op_acquire_lease to answer
    -- after the lease; an agentId that is no id then counts as another agent. (Only this function
    -- puts deferredError in a request.)
    p_request := p_request - 'deferredError';
    IF v_err IS NOT NULL AND jsonb_typeof(p_request -> 'filePath') = 'string'
       AND NOT swarm._blank(p_request ->> 'filePath') AND NOT swarm._too_long(p_request ->> 'filePath', 1024) THEN
      p_request := p_request || jsonb_build_object('deferredError', v_err -> 'error');
      IF NOT coalesce(jsonb_typeof(p_request -> 'agentId') = 'string' AND swarm._is_id(p_request ->> 'agentId'), false) THEN
        p_request := p_request - 'agentId';
      END IF;
      v_err := NULL;
    END IF;
  END IF;
  IF v_err IS NOT NULL THEN
    RETURN v_err;
  END IF;
  -- the signed agent (the signature itself is verified by the coordinator, security/HmacCredentials)
  IF p_options ? 'signer' THEN
    v_err := swarm._signer_error(v_operation, p_request, p_options ->> 'signer');
    IF v_err IS NOT NULL THEN
      RETURN v_err;
    END IF;
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

-- The requests of a batch at these places (from 1), in this order, for the set-based paths: each with
-- its agent's row (locked by swarm.dispatch_batch; NULL when not registered) and why that agent may not
-- make the call (swarm._agent_error; NULL when it may).
CREATE OR REPLACE FUNCTION swarm._batch_callers(p_items jsonb, p_ords integer[])
RETURNS TABLE (o integer, request jsonb, agent_id text, agent swarm.agents, refusal jsonb) LANGUAGE sql STABLE AS $$
  SELECT k.o, e.i -> 'request', e.i -> 'request' ->> 'agentId', a,
         swarm._agent_error(a, e.i -> 'request' ->> 'agentId', (e.i ->> 'principal')::uuid,
                            coalesce((e.i -> 'options' ->> 'admin')::boolean, false))
    FROM unnest(p_ords) WITH ORDINALITY k(o, n)
    CROSS JOIN LATERAL (SELECT p_items -> (k.o - 1) AS i) e
    LEFT JOIN swarm.agents a ON a.id = e.i -> 'request' ->> 'agentId'
   ORDER BY k.n
$$;

-- Runs many requests in one transaction, each with its own result (as swarm.dispatch).
-- p_items: [{"request": {...}, "principal": "<uuid>"|null, "options": {...}}, ...].
-- Returns the results, [{"ok"}|{"error"}, ...] in request order, the events and the order. With
-- p_capture_events the events of these requests come back in events (for the caller to publish)
-- instead of going to the outbox. run_order lists the requests (from 1) in the order they took effect
-- (below). swarm.dispatch_batch returns the same as one JSON object; the coordinator reads these parts
-- (ProtocolStore): folding every answer into one object, for the caller to take it apart again, copied
-- each answer twice, 15 µs a request.
-- The agents named are locked first, in id order, so concurrent batches never deadlock on them.
--
-- The requests of a batch were all in flight at once, so any order is a correct one between
-- different agents; one agent's requests run in the order given. An agent with a single request
-- that is a plain CLAIM (no filter) or a plain COMPLETE (no qualityMetrics), the hot path, that
-- passes its first checks (swarm.check_claim, swarm.check_complete), acts as the agent that signed
-- it if it was signed, and is not rate limited, goes
-- through swarm.complete_batch and swarm.claim_batch together: a few statements for all of them (the
-- functions a single COMPLETE or CLAIM runs too, as a batch of one). Every other request runs alone
-- through swarm.dispatch, in order, first; then the COMPLETEs, so that the CLAIMs after them can take
-- the tasks the COMPLETEs unblocked; then the CLAIMs. The outcome is that of running the requests one
-- by one through swarm.dispatch in the order "order" gives (BatchEquivalenceTest).
-- (one generic plan per statement: left to choose, PostgreSQL planned several of them afresh for every
-- batch, about a tenth of a small batch's time)
CREATE OR REPLACE FUNCTION swarm.dispatch_batch_parts(p_items jsonb,
                                     p_now timestamptz DEFAULT date_trunc('milliseconds', clock_timestamp()),
                                     p_capture_events boolean DEFAULT false,
                                     OUT results jsonb[], OUT events jsonb, OUT run_order integer[])
LANGUAGE plpgsql SET plan_cache_mode = force_generic_plan AS $$
DECLARE
  v_n integer := jsonb_array_length(p_items);
  v_results jsonb[] := array_fill(NULL::jsonb, ARRAY[v_n]);
  v_alone integer[];
  v_claims integer[];
  v_completes integer[];
  v_agent_ids text[];
  v_order integer[] := '{}';
  v_o integer;
  v_item jsonb;
  r record;
  v_captured text[] := '{}';
  v_batch_events jsonb[] := '{}';
  v_events jsonb := '[]'::jsonb;
  v_setting text;
BEGIN
  -- (set_config in assignments, statements of their own only where there is something to do: each
  -- statement of this function is an executor started and ended for every batch; see swarm._emit)
  IF p_capture_events THEN
    v_setting := set_config('swarm.capture', 'on', true);
    v_setting := set_config('swarm.captured', '', true);
  END IF;
  -- which requests take the set-based paths (see above); the rest run alone. And the agents named.
  SELECT coalesce(array_agg(k.o ORDER BY k.o) FILTER (WHERE k.path IS NULL), '{}'),
         coalesce(array_agg(k.o ORDER BY k.o) FILTER (WHERE k.path = 'CLAIM'), '{}'),
         coalesce(array_agg(k.o ORDER BY k.o) FILTER (WHERE k.path = 'COMPLETE'), '{}'),
         coalesce(array_agg(DISTINCT k.agent_id) FILTER (WHERE k.agent_id IS NOT NULL), '{}')
    INTO v_alone, v_claims, v_completes, v_agent_ids
    FROM (SELECT s.o, s.agent_id,
                 CASE WHEN count(*) OVER (PARTITION BY s.agent_id) = 1
                        AND s.r -> 'protocolVersion' = '"1.0"'
                        AND jsonb_typeof(s.r -> 'agentId') = 'string' AND btrim(s.r ->> 'agentId') <> ''
                        AND NOT coalesce(s.i -> 'options' ? 'rate', false)
                        AND coalesce(s.i -> 'options' ->> 'signer' = s.r ->> 'agentId', true) THEN
                   -- a plain CLAIM's first checks (swarm.check_claim) without its filter are its agentId's
                   -- format alone: said so here, since check_claim unfolded into this query cost 30 to 50 µs of
                   -- backend CPU a task (SwarmSqlBench, batches of 4)
                   CASE WHEN s.r ->> 'operation' = 'CLAIM' AND coalesce(s.r -> 'filter', 'null') = 'null'
                             AND swarm._is_id(s.r ->> 'agentId')
                          THEN 'CLAIM'
                        WHEN s.r ->> 'operation' = 'COMPLETE' AND coalesce(s.r -> 'qualityMetrics', 'null') = 'null'
                             AND swarm.check_complete(s.r, s.i -> 'options') IS NULL
                          THEN 'COMPLETE' END
                 END AS path
            FROM (SELECT x.o::integer AS o, x.i, x.i -> 'request' AS r,
                         coalesce(x.i -> 'request' ->> 'agentId', x.i -> 'request' -> 'agent' ->> 'id') AS agent_id
                    FROM jsonb_array_elements(p_items) WITH ORDINALITY x(i, o)) s) k;
  PERFORM 1 FROM swarm.agents WHERE id = ANY (v_agent_ids) ORDER BY id FOR NO KEY UPDATE;

  -- the other requests, alone, in order; then the plain COMPLETEs; then the plain CLAIMs, each set in
  -- the order its requests took effect
  FOR v_pass IN 1 .. 3 LOOP
    IF v_pass = 1 THEN
      FOREACH v_o IN ARRAY v_alone LOOP
        v_item := p_items -> (v_o - 1);
        v_results[v_o] := swarm.dispatch(
          v_item -> 'request', p_now, (v_item ->> 'principal')::uuid, coalesce(v_item -> 'options', '{}'::jsonb));
        v_order := array_append(v_order, v_o);
        IF p_capture_events THEN
          -- moved out after each request, so the setting stays short
          v_captured := v_captured || current_setting('swarm.captured');
          -- (an assignment rather than PERFORM: see swarm._emit)
          v_setting := set_config('swarm.captured', '', true);
        END IF;
      END LOOP;
    ELSIF (v_pass = 2 AND cardinality(v_completes) > 0) OR (v_pass = 3 AND cardinality(v_claims) > 0) THEN
      FOR r IN SELECT b.o, b.res, b.evs, b.n FROM swarm.complete_batch(p_items, v_completes, p_now) WITH ORDINALITY b(o, res, evs, n)
                WHERE v_pass = 2
               UNION ALL
               SELECT b.o, b.res, b.evs, b.n FROM swarm.claim_batch(p_items, v_claims, p_now) WITH ORDINALITY b(o, res, evs, n)
                WHERE v_pass = 3
               ORDER BY 4 LOOP
        v_results[r.o] := r.res;
        v_order := array_append(v_order, r.o);
        v_batch_events := CASE WHEN r.evs IS NULL THEN v_batch_events ELSE array_append(v_batch_events, r.evs) END;
      END LOOP;
    END IF;
  END LOOP;

  IF p_capture_events THEN
    -- every event, in the order it was numbered
    SELECT coalesce(jsonb_agg(e ORDER BY (e ->> 'seq')::bigint), '[]'::jsonb) INTO v_events
      FROM (SELECT line::jsonb AS e
              FROM unnest(string_to_array(array_to_string(v_captured, ''), E'\n')) line
             WHERE line <> ''
            UNION ALL
            SELECT jsonb_array_elements(b) FROM unnest(v_batch_events) b) x;
    -- the task history of the captured events, in the same transaction (the outbox's trigger does
    -- this for events that are not captured): every task event, and lease and message events naming a
    -- task; a lease's entry names its file (the event's id), which its data does not
    INSERT INTO swarm.task_history (task_id, seq, kind, event, at, data)
    SELECT CASE WHEN e ->> 'kind' = 'task' THEN e ->> 'id' ELSE e -> 'data' ->> 'taskId' END,
           (e ->> 'seq')::bigint, e ->> 'kind', e ->> 'event', (e ->> 'at')::timestamptz,
           CASE WHEN e ->> 'kind' = 'lease' THEN e -> 'data' || jsonb_build_object('filePath', e ->> 'id') ELSE e -> 'data' END
      FROM jsonb_array_elements(v_events) e
     WHERE e ->> 'kind' = 'task' OR (e ->> 'kind' IN ('lease', 'message') AND e -> 'data' ->> 'taskId' IS NOT NULL);
    v_setting := set_config('swarm.capture', 'off', true);
    results := v_results;
    events := v_events;
    run_order := v_order;
    RETURN;
  END IF;
  -- not captured: the set-based paths' events go to the outbox too (its trigger writes their history)
  INSERT INTO swarm.events (seq, kind, event, entity_id, at, data)
  SELECT (e ->> 'seq')::bigint, e ->> 'kind', e ->> 'event', e ->> 'id', (e ->> 'at')::timestamptz, e -> 'data'
    FROM unnest(v_batch_events) b, jsonb_array_elements(b) e
   ORDER BY 1;
  results := v_results;
  events := '[]'::jsonb;
  run_order := v_order;
END $$;

-- swarm.dispatch_batch_parts as one object: {"results": [...], "events": [...], "order": [...]}
CREATE OR REPLACE FUNCTION swarm.dispatch_batch(p_items jsonb,
                                     p_now timestamptz DEFAULT date_trunc('milliseconds', clock_timestamp()),
                                     p_capture_events boolean DEFAULT false)
RETURNS jsonb LANGUAGE sql AS $$
  SELECT jsonb_build_object('results', to_jsonb(p.results), 'events', p.events, 'order', to_jsonb(p.run_order))
    FROM swarm.dispatch_batch_parts(p_items, p_now, p_capture_events) p
$$;

-- ---- HMAC replay protection ----------------------------------------------------------------

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
