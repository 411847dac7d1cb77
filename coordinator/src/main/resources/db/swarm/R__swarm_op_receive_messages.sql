-- Repeatable migration (Flyway R__): the swarm operation RECEIVE_MESSAGES, its checks and its effect. Flyway runs this file again
-- whenever it changes, after the versioned migrations (tables, indexes) in this directory; edit the
-- function here instead of adding a versioned migration. CREATE OR REPLACE keeps a function's
-- signature: to change its arguments or return type, DROP it first in this file.
-- Function bodies are checked when called, not here, so the files may run in any order.
SET LOCAL check_function_bodies = off;

-- Swarm coordinator: RECEIVE_MESSAGES. Returns, oldest first, the messages not yet delivered to the
-- caller plus those that need an ack and have none yet, and marks them delivered.

-- RECEIVE_MESSAGES's first checks, which swarm.dispatch runs before the signed-agent check and the rate limit:
-- the agentId's format, since's length and the number of types. The error of the first member that breaks one, or NULL.
-- JSON types, required members and enumerations are checked after them, by the operation itself.
CREATE OR REPLACE FUNCTION swarm.check_receive_messages(p_req jsonb, p_options jsonb DEFAULT '{}'::jsonb)
RETURNS jsonb LANGUAGE sql STABLE AS $$
  SELECT coalesce(
    swarm._c_id(p_req, 'agentId', 'agentId'),
    swarm._c_sized(p_req, 'since', 'since', 64),
    swarm._c_counted(p_req, 'types', 'types', 16))
$$;

CREATE OR REPLACE FUNCTION swarm.op_receive_messages(p_req jsonb, p_now timestamptz, p_principal uuid, p_admin boolean)
RETURNS jsonb LANGUAGE plpgsql AS $$
DECLARE
  v_agent_id text := swarm._req_str(p_req, 'agentId', 'agentId');
  v_since timestamptz := swarm._ts(p_req, 'since', 'since');
  v_types text[] := swarm._enum_array(p_req, 'types', 'types', ARRAY['task.help_needed', 'task.handoff',
                       'file.lock_request', 'coordination.sync', 'info.discovery', 'custom']);
  v_limit bigint := coalesce(swarm._int(p_req, 'limit', 'limit'), 100);
  v_messages jsonb;
  v_delivered bigint;
  v_err jsonb;
  a swarm.agents;
BEGIN
  IF v_limit < 1 OR v_limit > 1000 THEN
    PERFORM swarm._invalid('limit', 'must be between 1 and 1000');
  END IF;
  IF cardinality(v_types) = 0 THEN
    v_types := NULL;
  END IF;
  SELECT * INTO a FROM swarm.agents WHERE id = v_agent_id FOR NO KEY UPDATE;
  v_err := swarm._agent_error(a, v_agent_id, p_principal, p_admin);
  IF v_err IS NOT NULL THEN
    RETURN v_err;
  END IF;

  WITH picked AS (
    SELECT m.id, m.seq, m.type, m.created_at, swarm._message_json(m) AS j, r.message_id IS NULL AS first_delivery
      FROM swarm.messages m
      LEFT JOIN swarm.message_receipts r ON r.message_id = m.id AND r.agent_id = v_agent_id
     WHERE (m.to_agent = v_agent_id
            OR (m.to_agent IS NULL AND m.from_agent <> v_agent_id AND m.created_at >= a.first_registered_at))
       AND (m.expires_at IS NULL OR m.expires_at > p_now)
       AND (v_since IS NULL OR m.created_at > v_since)
       AND (v_types IS NULL OR m.type = ANY (v_types))
       AND (r.message_id IS NULL OR (m.ack_required AND r.acked_at IS NULL))
     ORDER BY m.created_at, m.seq
     LIMIT v_limit),
  receipts AS (
    INSERT INTO swarm.message_receipts AS x (message_id, agent_id, delivered_at)
    SELECT p.id, v_agent_id, p_now FROM picked p
    ON CONFLICT (message_id, agent_id) DO UPDATE SET deliveries = x.deliveries + 1
    RETURNING 1),
  ev AS (
    SELECT swarm._emit('message', 'delivered', p.id::text, p_now, jsonb_build_object('to', v_agent_id, 'type', p.type))
      FROM picked p WHERE p.first_delivery)
  -- (the receipts CTE modifies data, so it runs to completion anyway; ev runs because it is read)
  SELECT (SELECT coalesce(jsonb_agg(p.j ORDER BY p.created_at, p.seq), '[]'::jsonb) FROM picked p),
         (SELECT count(*) FROM ev)
    INTO v_messages, v_delivered;
  RETURN swarm._ok(jsonb_build_object('success', true, 'messages', v_messages));
END $$;
