-- Repeatable migration (Flyway R__): the swarm functions every operation shares: results, errors, reading request JSON, JSON shapes, events, callers, rate limits and the task transitions. Flyway runs this file again
-- whenever it changes, after the versioned migrations (tables, indexes) in this directory; edit the
-- function here instead of adding a versioned migration. CREATE OR REPLACE keeps a function's
-- signature: to change its arguments or return type, DROP it first in this file.
-- Function bodies are checked when called, not here, so the files may run in any order.
SET LOCAL check_function_bodies = off;

-- Swarm coordinator: shared helpers. Each protocol operation is one file, R__swarm_op_<operation>.sql,
-- holding its checks and its effect; what several of them use is here.
--
-- Every protocol operation returns either {"ok": <response>} or {"error": {code, kind, message, ...}}
-- instead of raising, so that a batch of requests in one transaction survives one bad request.
-- swarm.execute() (the direct-database entry point) turns errors into exceptions.
--
-- Lock order, everywhere: agent row, then task rows, then quality baseline, leases and dependents.

-- ---- fixed protocol constants --------------------------------------------------------------

-- an agent whose last heartbeat is older than this is stale (spec: 2 minutes)
CREATE OR REPLACE FUNCTION swarm.stale_after() RETURNS interval LANGUAGE sql IMMUTABLE AS $$ SELECT interval '2 minutes' $$;

-- the longest lease ACQUIRE_LEASE grants (spec: 1 hour)
CREATE OR REPLACE FUNCTION swarm.max_lease() RETURNS interval LANGUAGE sql IMMUTABLE AS $$ SELECT interval '1 hour' $$;

-- retry backoff after the n-th failure: min(30 s * 2^n, 5 min), in milliseconds
CREATE OR REPLACE FUNCTION swarm.retry_backoff_ms(p_retry_count integer) RETURNS bigint LANGUAGE sql IMMUTABLE AS $$
  SELECT least(30000 * power(2::numeric, least(p_retry_count, 30)), 300000)::bigint
$$;

-- ---- results and errors --------------------------------------------------------------------

-- (STABLE, as jsonb_build_object is: PostgreSQL inlines a SQL function into its caller's expression
-- only when the body is no more volatile than the function says. Declared IMMUTABLE, these two ran as
-- queries of their own, with an executor each, on every request.)
CREATE OR REPLACE FUNCTION swarm._ok(p_response jsonb) RETURNS jsonb LANGUAGE sql STABLE AS $$
  SELECT jsonb_build_object('ok', p_response)
$$;

-- kind: invalid | unauthenticated | forbidden | not_found | conflict | rate_limited
CREATE OR REPLACE FUNCTION swarm._err(p_code text, p_kind text, p_message text, p_extra jsonb DEFAULT '{}'::jsonb)
RETURNS jsonb LANGUAGE sql STABLE AS $$
  SELECT jsonb_build_object('error',
    jsonb_build_object('code', p_code, 'kind', p_kind, 'message', p_message) || coalesce(p_extra, '{}'::jsonb))
$$;

-- the SQLSTATE swarm.execute() raises for an error kind
CREATE OR REPLACE FUNCTION swarm._sqlstate(p_kind text) RETURNS text LANGUAGE sql IMMUTABLE AS $$
  SELECT CASE p_kind WHEN 'invalid' THEN 'SW400' WHEN 'unauthenticated' THEN 'SW401' WHEN 'forbidden' THEN 'SW403' WHEN 'not_found' THEN 'SW404'
                     WHEN 'rate_limited' THEN 'SW429' ELSE 'SW409' END
$$;

-- raises an error result as an exception: SQLSTATE by kind, message "<code>: <message>", detail = the error JSON
CREATE OR REPLACE FUNCTION swarm._raise(p_error jsonb) RETURNS void LANGUAGE plpgsql IMMUTABLE AS $$
BEGIN
  RAISE EXCEPTION USING ERRCODE = swarm._sqlstate(p_error ->> 'kind'),
    MESSAGE = (p_error ->> 'code') || ': ' || (p_error ->> 'message'),
    DETAIL = p_error::text;
END $$;

-- bad input in a request. The readers below (JSON types, required members, enumerations) are the one
-- check of these for every transport and for direct callers; the coordinator's Java checks only
-- sizes, id formats and the ranges these functions do not (validation/JsonFields)
CREATE OR REPLACE FUNCTION swarm._invalid(p_path text, p_problem text) RETURNS void LANGUAGE plpgsql IMMUTABLE AS $$
BEGIN
  PERFORM swarm._raise(swarm._err('invalid_operation', 'invalid', p_path || ' ' || p_problem,
                                  jsonb_build_object('field', p_path)) -> 'error');
END $$;

-- ---- reading request JSON ------------------------------------------------------------------

-- The readers below are plain SQL so that they inline into the callers' cached plans. They and
-- swarm._bad (which raises, typed to fit any CASE branch) are VOLATILE on purpose: the planner folds
-- immutable calls with constant arguments ahead of time, and would raise for branches never taken.
CREATE OR REPLACE FUNCTION swarm._bad(p_path text, p_problem text) RETURNS text LANGUAGE plpgsql VOLATILE AS $$
BEGIN
  PERFORM swarm._invalid(p_path, p_problem);
  RETURN NULL;
END $$;

CREATE OR REPLACE FUNCTION swarm._obj(p jsonb, p_key text, p_path text) RETURNS jsonb LANGUAGE sql VOLATILE AS $$
  SELECT CASE coalesce(jsonb_typeof(p -> p_key), 'null')
    WHEN 'null' THEN NULL WHEN 'object' THEN p -> p_key
    ELSE swarm._bad(p_path, 'must be an object')::jsonb END
$$;

CREATE OR REPLACE FUNCTION swarm._str(p jsonb, p_key text, p_path text) RETURNS text LANGUAGE sql VOLATILE AS $$
  SELECT CASE coalesce(jsonb_typeof(p -> p_key), 'null')
    WHEN 'null' THEN NULL WHEN 'string' THEN p ->> p_key
    ELSE swarm._bad(p_path, 'must be a string') END
$$;

CREATE OR REPLACE FUNCTION swarm._req_str(p jsonb, p_key text, p_path text) RETURNS text LANGUAGE plpgsql IMMUTABLE AS $$
DECLARE v text := swarm._str(p, p_key, p_path);
BEGIN
  IF v IS NULL OR btrim(v) = '' THEN PERFORM swarm._invalid(p_path, 'is required'); END IF;
  RETURN v;
END $$;

CREATE OR REPLACE FUNCTION swarm._str_array(p jsonb, p_key text, p_path text) RETURNS text[] LANGUAGE plpgsql IMMUTABLE AS $$
DECLARE v jsonb := p -> p_key;
BEGIN
  IF v IS NULL OR jsonb_typeof(v) = 'null' THEN RETURN NULL; END IF;
  -- (runs several times per CLAIM and COMPLETE: the empty list, the usual case, costs nothing more)
  IF v = '[]'::jsonb THEN RETURN '{}'; END IF;
  IF jsonb_typeof(v) <> 'array' OR jsonb_path_exists(v, 'strict $[*] ? (@.type() != "string")') THEN
    PERFORM swarm._invalid(p_path, 'must be an array of strings');
  END IF;
  RETURN ARRAY(SELECT jsonb_array_elements_text(v));
END $$;

CREATE OR REPLACE FUNCTION swarm._num(p jsonb, p_key text, p_path text) RETURNS numeric LANGUAGE sql VOLATILE AS $$
  SELECT CASE coalesce(jsonb_typeof(p -> p_key), 'null')
    WHEN 'null' THEN NULL WHEN 'number' THEN (p ->> p_key)::numeric
    ELSE swarm._bad(p_path, 'must be a number')::numeric END
$$;

CREATE OR REPLACE FUNCTION swarm._int(p jsonb, p_key text, p_path text) RETURNS bigint LANGUAGE plpgsql IMMUTABLE AS $$
DECLARE v numeric := swarm._num(p, p_key, p_path);
BEGIN
  IF v IS NULL THEN RETURN NULL; END IF;
  IF v <> trunc(v) OR abs(v) > 9007199254740991 THEN PERFORM swarm._invalid(p_path, 'must be a whole number'); END IF;
  RETURN v::bigint;
END $$;

CREATE OR REPLACE FUNCTION swarm._bool(p jsonb, p_key text, p_path text) RETURNS boolean LANGUAGE sql VOLATILE AS $$
  SELECT CASE coalesce(jsonb_typeof(p -> p_key), 'null')
    WHEN 'null' THEN NULL WHEN 'boolean' THEN (p ->> p_key)::boolean
    ELSE swarm._bad(p_path, 'must be true or false')::boolean END
$$;

CREATE OR REPLACE FUNCTION swarm._ts(p jsonb, p_key text, p_path text) RETURNS timestamptz LANGUAGE plpgsql STABLE AS $$
DECLARE v text := swarm._str(p, p_key, p_path);
BEGIN
  IF v IS NULL THEN RETURN NULL; END IF;
  IF v !~ '^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:?\d{2})$' THEN
    PERFORM swarm._invalid(p_path, 'must be an ISO-8601 timestamp with a zone, e.g. 2026-01-19T10:00:00Z');
  END IF;
  RETURN v::timestamptz;
EXCEPTION WHEN datetime_field_overflow OR invalid_datetime_format OR invalid_time_zone_displacement_value THEN
  -- the shape is right but the date is not (2026-02-30, 25:00, +99:00)
  PERFORM swarm._invalid(p_path, 'must be an ISO-8601 timestamp with a zone, e.g. 2026-01-19T10:00:00Z');
  RETURN NULL;
END $$;

-- one of the allowed values, or NULL when absent
CREATE OR REPLACE FUNCTION swarm._enum(p jsonb, p_key text, p_path text, p_allowed text[]) RETURNS text LANGUAGE plpgsql IMMUTABLE AS $$
DECLARE v text := swarm._str(p, p_key, p_path);
BEGIN
  IF v IS NOT NULL AND NOT v = ANY (p_allowed) THEN
    PERFORM swarm._invalid(p_path, 'must be one of ' || array_to_string(p_allowed, ', ') || ', got ''' || v || '''');
  END IF;
  RETURN v;
END $$;

-- an array of strings each one of the allowed values (the first that is not is named by its index), or NULL when absent
CREATE OR REPLACE FUNCTION swarm._enum_array(p jsonb, p_key text, p_path text, p_allowed text[]) RETURNS text[] LANGUAGE plpgsql IMMUTABLE AS $$
DECLARE v text[] := swarm._str_array(p, p_key, p_path);
BEGIN
  IF v IS NOT NULL AND NOT v <@ p_allowed THEN
    FOR i IN 1 .. cardinality(v) LOOP
      IF NOT v[i] = ANY (p_allowed) THEN
        PERFORM swarm._invalid(p_path || '[' || (i - 1) || ']',
                               'must be one of ' || array_to_string(p_allowed, ', ') || ', got ''' || v[i] || '''');
      END IF;
    END LOOP;
  END IF;
  RETURN v;
END $$;

-- raises "is required" when the member is absent or JSON null (its type is checked where it is read)
CREATE OR REPLACE FUNCTION swarm._required(p jsonb, p_key text, p_path text) RETURNS void LANGUAGE plpgsql IMMUTABLE AS $$
BEGIN
  IF coalesce(jsonb_typeof(p -> p_key), 'null') = 'null' THEN
    PERFORM swarm._invalid(p_path, 'is required');
  END IF;
END $$;

-- ---- sizes, formats and ranges (swarm.check_<operation>) -------------------------------------

-- Each operation's first checks, run by swarm.dispatch before the signed-agent check and the rate
-- limit (the readers above run after them, in the operation): a string too long, an id of the wrong
-- format, a number out of range, a list too long. Each returns the error of the member it checks, or
-- NULL; a member of another JSON type, or an absent one, passes (its type is the operation's check),
-- so that swarm.check_<operation> chains them in a coalesce, which stops at the first error. A member
-- of a member that is not an object is absent (jsonb's -> gives NULL), as it is to the readers.
-- Lengths count as Java counts them (UTF-16 code units), the unit the protocol's limits were written
-- in; blank is Java's String.isBlank.
CREATE OR REPLACE FUNCTION swarm._field_err(p_path text, p_problem text) RETURNS jsonb LANGUAGE sql STABLE AS $$
  SELECT swarm._err('invalid_operation', 'invalid', p_path || ' ' || p_problem, jsonb_build_object('field', p_path))
$$;

-- more than p_max UTF-16 code units? (a character beyond U+FFFF counts two; bytes bound the count
-- from above and characters from below, so the exact count is needed only between the two)
CREATE OR REPLACE FUNCTION swarm._too_long(p text, p_max integer) RETURNS boolean LANGUAGE sql IMMUTABLE AS $$
  SELECT CASE WHEN octet_length(p) <= p_max THEN false
              WHEN length(p) > p_max THEN true
              ELSE length(p) + length(regexp_replace(p, '[^\U00010000-\U0010FFFF]+', '', 'g')) > p_max END
$$;

-- empty or only whitespace as Java's Character.isWhitespace has it
CREATE OR REPLACE FUNCTION swarm._blank(p text) RETURNS boolean LANGUAGE sql IMMUTABLE AS $$
  SELECT p ~ '^[\u0009-\u000D\u001C-\u0020\u1680\u2000-\u2006\u2008-\u200A\u2028\u2029\u205F\u3000]*$'
$$;

-- the identifier format (validation/Limits.ID): 1-128 letters, digits, '.', '_', ':', '@' or '-',
-- starting with a letter or digit. (The length apart: a bounded repetition, {0,127}, makes
-- PostgreSQL's regular expression several times slower, 5 µs a match.)
CREATE OR REPLACE FUNCTION swarm._is_id(p text) RETURNS boolean LANGUAGE sql IMMUTABLE AS $$
  SELECT octet_length(p) <= 128 AND p ~ '^[A-Za-z0-9][A-Za-z0-9._:@-]*$'
$$;

-- a string of at most p_max characters
CREATE OR REPLACE FUNCTION swarm._c_sized(p jsonb, p_key text, p_path text, p_max integer) RETURNS jsonb LANGUAGE sql STABLE AS $$
  SELECT CASE WHEN jsonb_typeof(p -> p_key) = 'string' AND swarm._too_long(p ->> p_key, p_max)
    THEN swarm._field_err(p_path, 'must be at most ' || p_max || ' characters') END
$$;

CREATE OR REPLACE FUNCTION swarm._id_err(p_path text) RETURNS jsonb LANGUAGE sql STABLE AS $$
  SELECT swarm._field_err(p_path, 'must be 1-128 letters, digits, ''.'', ''_'', '':'', ''@'' or ''-'', starting with a letter or digit')
$$;

-- a string in the identifier format
CREATE OR REPLACE FUNCTION swarm._c_id(p jsonb, p_key text, p_path text) RETURNS jsonb LANGUAGE sql STABLE AS $$
  SELECT CASE WHEN jsonb_typeof(p -> p_key) = 'string' AND NOT swarm._is_id(p ->> p_key) THEN swarm._id_err(p_path) END
$$;

-- a number between p_min and p_max (whether it is whole is the operation's check)
CREATE OR REPLACE FUNCTION swarm._c_within(p jsonb, p_key text, p_path text, p_min bigint, p_max bigint) RETURNS jsonb LANGUAGE sql STABLE AS $$
  SELECT CASE WHEN jsonb_typeof(p -> p_key) = 'number' AND NOT ((p ->> p_key)::numeric BETWEEN p_min AND p_max)
    THEN swarm._field_err(p_path, 'must be between ' || p_min || ' and ' || p_max) END
$$;

-- a number of at most p_max (the lower bound is the operation's check)
CREATE OR REPLACE FUNCTION swarm._c_at_most(p jsonb, p_key text, p_path text, p_max bigint) RETURNS jsonb LANGUAGE sql STABLE AS $$
  SELECT CASE WHEN jsonb_typeof(p -> p_key) = 'number' AND (p ->> p_key)::numeric > p_max
    THEN swarm._field_err(p_path, 'must be at most ' || p_max) END
$$;

-- an array of at most p_max entries (what they are is the operation's check)
CREATE OR REPLACE FUNCTION swarm._c_counted(p jsonb, p_key text, p_path text, p_max integer) RETURNS jsonb LANGUAGE sql STABLE AS $$
  SELECT CASE WHEN jsonb_typeof(p -> p_key) = 'array' AND jsonb_array_length(p -> p_key) > p_max
    THEN swarm._field_err(p_path, 'must have at most ' || p_max || ' entries, got ' || jsonb_array_length(p -> p_key)) END
$$;

-- an array of at most p_max_items entries whose strings are neither blank nor longer than p_max_length
-- (entries that are not strings are the operation's check); with p_ids, those strings are then
-- identifiers too, checked after all of them passed the first checks. (The empty list and an absent
-- one, the usual cases, are told here, in SQL the caller inlines, without a call: a COMPLETE has four
-- lists, and calls cost a microsecond each.)
CREATE OR REPLACE FUNCTION swarm._c_list(p jsonb, p_key text, p_path text, p_max_items integer, p_max_length integer,
                                         p_ids boolean DEFAULT false)
RETURNS jsonb LANGUAGE sql STABLE AS $$
  SELECT CASE WHEN jsonb_typeof(p -> p_key) = 'array' AND p -> p_key <> '[]'::jsonb
    THEN swarm._c_list_items(p -> p_key, p_path, p_max_items, p_max_length, p_ids) END
$$;

CREATE OR REPLACE FUNCTION swarm._c_list_items(v jsonb, p_path text, p_max_items integer, p_max_length integer,
                                               p_ids boolean)
RETURNS jsonb LANGUAGE plpgsql STABLE AS $$
DECLARE
  v_n integer := jsonb_array_length(v);
  v_item jsonb;
BEGIN
  IF v_n > p_max_items THEN
    RETURN swarm._field_err(p_path, 'must have at most ' || p_max_items || ' entries, got ' || v_n);
  END IF;
  FOR i IN 0 .. v_n - 1 LOOP
    v_item := v -> i;
    IF jsonb_typeof(v_item) = 'string' THEN
      IF swarm._blank(v_item #>> '{}') THEN
        RETURN swarm._field_err(p_path || '[' || i || ']', 'must not be blank');
      END IF;
      IF swarm._too_long(v_item #>> '{}', p_max_length) THEN
        RETURN swarm._field_err(p_path || '[' || i || ']', 'must be at most ' || p_max_length || ' characters');
      END IF;
    END IF;
  END LOOP;
  IF p_ids THEN
    FOR i IN 0 .. v_n - 1 LOOP
      v_item := v -> i;
      IF jsonb_typeof(v_item) = 'string' AND NOT swarm._is_id(v_item #>> '{}') THEN
        RETURN swarm._id_err(p_path || '[' || i || ']');
      END IF;
    END LOOP;
  END IF;
  RETURN NULL;
END $$;

-- a problem the coordinator found where SQL cannot look (ProtocolRequests.javaProblems: a display
-- name's characters, a payload's size in the coordinator's encoding), answered at the member's place
-- among the other checks: options {"javaProblems": {"<path>": "<problem>"}}
CREATE OR REPLACE FUNCTION swarm._c_java(p_options jsonb, p_path text) RETURNS jsonb LANGUAGE sql STABLE AS $$
  SELECT CASE WHEN p_options -> 'javaProblems' ? p_path
    THEN swarm._field_err(p_path, p_options -> 'javaProblems' ->> p_path) END
$$;

-- skill names compare case-insensitively: trimmed, lower-cased, de-duplicated, sorted
CREATE OR REPLACE FUNCTION swarm._skills(p text[]) RETURNS text[] LANGUAGE sql IMMUTABLE AS $$
  SELECT coalesce(array_agg(DISTINCT lower(btrim(s)) ORDER BY lower(btrim(s))), '{}')
  FROM unnest(p) s WHERE btrim(s) <> ''
$$;

-- distinct values in first-seen order
CREATE OR REPLACE FUNCTION swarm._distinct(p text[]) RETURNS text[] LANGUAGE sql IMMUTABLE AS $$
  SELECT coalesce(array_agg(v ORDER BY first_at), '{}')
  FROM (SELECT v, min(o) AS first_at FROM unnest(p) WITH ORDINALITY x(v, o) GROUP BY v) d
$$;

-- ---- JSON shapes ---------------------------------------------------------------------------

-- timestamps leave as ISO-8601 UTC with milliseconds (the coordinator stores millisecond precision)
CREATE OR REPLACE FUNCTION swarm._iso(p timestamptz) RETURNS text LANGUAGE sql STABLE AS $$
  SELECT to_char(p AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')
$$;

CREATE OR REPLACE FUNCTION swarm.task_json(t swarm.tasks) RETURNS jsonb LANGUAGE sql STABLE AS $$
  SELECT jsonb_strip_nulls(jsonb_build_object(
    'id', t.id, 'title', t.title, 'description', t.description, 'status', t.status,
    'priority', t.priority, 'type', t.type,
    'requiredSkills', to_jsonb(t.required_skills), 'estimatedMinutes', t.estimated_minutes,
    'files', to_jsonb(t.files), 'dependencies', to_jsonb(t.dependencies),
    'retryCount', t.retry_count, 'maxRetries', t.max_retries, 'previousAgents', to_jsonb(t.previous_agents),
    'lastError', t.last_error, 'failureType', t.failure_type, 'branch', t.branch,
    'assignedAgent', t.assigned_agent, 'progress', t.progress, 'result', t.result, 'quality', t.quality,
    'cancelReason', t.cancel_reason,
    'createdAt', swarm._iso(t.created_at), 'updatedAt', swarm._iso(t.updated_at),
    'claimedAt', swarm._iso(t.claimed_at), 'startedAt', swarm._iso(t.started_at),
    'completedAt', swarm._iso(t.completed_at), 'nextRetryAt', swarm._iso(t.next_retry_at)))
$$;

CREATE OR REPLACE FUNCTION swarm.agent_json(a swarm.agents) RETURNS jsonb LANGUAGE sql STABLE AS $$
  SELECT jsonb_strip_nulls(jsonb_build_object(
    'id', a.id, 'name', a.name, 'type', a.type, 'status', a.status,
    'capabilities', jsonb_build_object('skills', to_jsonb(a.skills), 'maxTaskMinutes', a.max_task_minutes,
      'canRunTests', a.can_run_tests, 'canRunBuild', a.can_run_build, 'canAccessBrowser', a.can_access_browser),
    'machine', a.machine, 'currentTask', a.current_task, 'metrics', a.metrics,
    'heartbeatCount', a.heartbeat_count, 'tasksCompleted', a.tasks_completed, 'tasksFailed', a.tasks_failed,
    'registeredAt', swarm._iso(a.registered_at), 'lastHeartbeatAt', swarm._iso(a.last_heartbeat),
    'offlineAt', swarm._iso(a.offline_at)))
$$;

CREATE OR REPLACE FUNCTION swarm._message_json(m swarm.messages) RETURNS jsonb LANGUAGE sql STABLE AS $$
  SELECT jsonb_build_object('id', m.id, 'from', m.from_agent, 'to', m.to_agent, 'type', m.type,
                            'payload', m.payload, 'ackRequired', m.ack_required,
                            'createdAt', swarm._iso(m.created_at))
         || CASE WHEN m.expires_at IS NULL THEN '{}'::jsonb ELSE jsonb_build_object('expiresAt', swarm._iso(m.expires_at)) END
$$;

-- an event as the coordinator publishes it, numbered now: {seq, kind, event, id, at, data}
CREATE OR REPLACE FUNCTION swarm._event(p_kind text, p_event text, p_id text, p_at timestamptz, p_data jsonb)
RETURNS jsonb LANGUAGE sql VOLATILE AS $$
  SELECT jsonb_build_object('seq', nextval('swarm.event_seq'), 'kind', p_kind, 'event', p_event, 'id', p_id,
                            'at', swarm._iso(p_at), 'data', coalesce(jsonb_strip_nulls(p_data), '{}'::jsonb))
$$;

-- Returns the event's number when it is captured, NULL when it went to the outbox. (A result, so that
-- the hot paths call it in an assignment: PL/pgSQL evaluates an assignment's expression directly,
-- where PERFORM runs a whole query through the executor. The same goes for set_config here.)
DROP FUNCTION IF EXISTS swarm._emit(text, text, text, timestamptz, jsonb);
CREATE FUNCTION swarm._emit(p_kind text, p_event text, p_id text, p_at timestamptz, p_data jsonb)
RETURNS bigint LANGUAGE plpgsql AS $$
DECLARE
  v_event jsonb;
  v_captured text;
BEGIN
  IF current_setting('swarm.capture', true) = 'on' THEN
    v_event := swarm._event(p_kind, p_event, p_id, p_at, p_data);
    v_captured := set_config('swarm.captured', current_setting('swarm.captured') || v_event::text || E'\n', true);
    -- (swarm.dispatch_batch writes the task history of what it captured, in one statement)
    RETURN (v_event ->> 'seq')::bigint;
  END IF;
  INSERT INTO swarm.events (kind, event, entity_id, at, data)
  VALUES (p_kind, p_event, p_id, p_at, coalesce(jsonb_strip_nulls(p_data), '{}'::jsonb));
  RETURN NULL;
END $$;

-- Emits events numbered already (swarm._event), as swarm._emit does: captured when capturing, else
-- into the outbox. For an operation that runs as a batch of one (swarm.op_claim, swarm.op_complete):
-- the batch returns its events, a single request emits them. Returns how many (an assignment: see above).
CREATE OR REPLACE FUNCTION swarm._emit_events(p_events jsonb) RETURNS integer LANGUAGE plpgsql AS $$
DECLARE
  v_captured text;
BEGIN
  IF p_events IS NULL OR p_events = '[]'::jsonb THEN
    RETURN 0;
  END IF;
  IF current_setting('swarm.capture', true) = 'on' THEN
    v_captured := set_config('swarm.captured', current_setting('swarm.captured')
      || (SELECT string_agg(e::text || E'\n', '' ORDER BY n) FROM jsonb_array_elements(p_events) WITH ORDINALITY x(e, n)), true);
  ELSE
    INSERT INTO swarm.events (seq, kind, event, entity_id, at, data)
    SELECT (e ->> 'seq')::bigint, e ->> 'kind', e ->> 'event', e ->> 'id', (e ->> 'at')::timestamptz, e -> 'data'
      FROM jsonb_array_elements(p_events) e
     ORDER BY 1;
  END IF;
  RETURN jsonb_array_length(p_events);
END $$;

-- ---- agents as callers ---------------------------------------------------------------------

-- why the agent may not make this call, or NULL. The caller has locked the row (a.id IS NULL: none).
-- Ownership is enforced for a principal that is not an admin; a NULL principal is a trusted transport.
CREATE OR REPLACE FUNCTION swarm._agent_error(a swarm.agents, p_agent_id text, p_principal uuid, p_admin boolean,
                                   p_allow_offline boolean DEFAULT false)
RETURNS jsonb LANGUAGE sql STABLE AS $$
  SELECT CASE
    WHEN a.id IS NULL THEN
      swarm._err('agent_not_registered', 'not_found', format('agent %s is not registered; REGISTER first', p_agent_id))
    WHEN p_principal IS NOT NULL AND NOT p_admin AND a.owner_principal IS DISTINCT FROM p_principal THEN
      swarm._err('agent_not_owned', 'forbidden', format('agent %s was registered by another principal', p_agent_id))
    WHEN a.status = 'offline' AND NOT p_allow_offline THEN
      swarm._err('agent_not_registered', 'not_found',
                 format('agent %s was marked offline at %s after missing heartbeats; REGISTER again',
                        p_agent_id, swarm._iso(a.offline_at)))
  END
$$;

-- an agent counts as active while it is not offline and its last heartbeat is fresh
CREATE OR REPLACE FUNCTION swarm._active(a swarm.agents, p_now timestamptz) RETURNS boolean LANGUAGE sql IMMUTABLE AS $$
  SELECT a.status <> 'offline' AND a.last_heartbeat > p_now - swarm.stale_after()
$$;

-- ---- rate limits ---------------------------------------------------------------------------

-- counts one hit in the caller's current one-minute window; an error when over the limit
CREATE OR REPLACE FUNCTION swarm._rate_check(p_rate jsonb, p_now timestamptz) RETURNS jsonb LANGUAGE plpgsql AS $$
DECLARE
  v_bucket text := p_rate ->> 'bucket';
  v_limit integer := (p_rate ->> 'limit')::integer;
  v_window timestamptz := date_trunc('minute', p_now, 'UTC');
  v_hits integer;
BEGIN
  IF v_bucket IS NULL OR v_limit IS NULL THEN
    RETURN NULL;
  END IF;
  INSERT INTO swarm.rate_windows AS w (bucket, window_start, hits) VALUES (v_bucket, v_window, 1)
  ON CONFLICT (bucket, window_start) DO UPDATE SET hits = w.hits + 1
  RETURNING hits INTO v_hits;
  IF v_hits > v_limit THEN
    RETURN swarm._err('rate_limited', 'rate_limited',
      format('rate limit of %s requests per minute reached; retry after the window ends', v_limit),
      jsonb_build_object('limit', v_limit,
        'retryAfterSeconds', greatest(1, ceil(extract(epoch FROM (v_window + interval '1 minute' - p_now))))::integer));
  END IF;
  RETURN NULL;
END $$;

-- ---- task transitions (COMPLETE, FAIL, leases, a crashed agent, the operator) --------------

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

-- the task a COMPLETE or FAIL names, if this agent may report on it (else an error result)
CREATE OR REPLACE FUNCTION swarm._reportable(t swarm.tasks, p_task_id text, p_agent_id text) RETURNS jsonb LANGUAGE sql STABLE AS $$
  SELECT CASE
    WHEN t.id IS NULL THEN
      swarm._err('task_not_found', 'not_found', format('no task with id %s', p_task_id))
    WHEN t.assigned_agent IS NOT NULL AND t.assigned_agent <> p_agent_id THEN
      swarm._err('task_already_claimed', 'conflict', format('task %s is assigned to another agent', p_task_id))
    WHEN t.assigned_agent IS NULL OR t.status NOT IN ('claimed', 'in_progress', 'needs_review') THEN
      swarm._err('invalid_operation', 'conflict',
                 format('task %s is %s and not assigned to agent %s', p_task_id, t.status, p_agent_id),
                 jsonb_build_object('taskStatus', t.status))
  END
$$;
