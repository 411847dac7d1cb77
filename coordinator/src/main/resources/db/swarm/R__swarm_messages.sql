-- Repeatable migration (Flyway R__): the swarm functions for messages. Flyway runs this file again
-- whenever it changes, after the versioned migrations (tables, indexes) in this directory; edit the
-- function here instead of adding a versioned migration. CREATE OR REPLACE keeps a function's
-- signature: to change its arguments or return type, DROP it first in this file.
-- Function bodies are checked when called, not here, so the files may run in any order.
SET LOCAL check_function_bodies = off;

-- Swarm coordinator: agent messages (SEND_MESSAGE, RECEIVE_MESSAGES, ACK_MESSAGE, expiry).
--
-- A message goes to one agent ("to") or, without "to", to every other agent registered when it was
-- sent or later (a broadcast). RECEIVE returns, oldest first, the messages not yet delivered to the
-- caller plus those that need an ack and have none yet, and marks them delivered.

CREATE OR REPLACE FUNCTION swarm._message_json(m swarm.messages) RETURNS jsonb LANGUAGE sql STABLE AS $$
  SELECT jsonb_build_object('id', m.id, 'from', m.from_agent, 'to', m.to_agent, 'type', m.type,
                            'payload', m.payload, 'ackRequired', m.ack_required,
                            'createdAt', swarm._iso(m.created_at))
         || CASE WHEN m.expires_at IS NULL THEN '{}'::jsonb ELSE jsonb_build_object('expiresAt', swarm._iso(m.expires_at)) END
$$;

CREATE OR REPLACE FUNCTION swarm.op_send_message(p_req jsonb, p_now timestamptz, p_principal uuid, p_admin boolean)
RETURNS jsonb LANGUAGE plpgsql AS $$
DECLARE
  v_agent_id text := swarm._req_str(p_req, 'agentId', 'agentId');
  v_message jsonb := swarm._obj(p_req, 'message', 'message');
  v_to text;
  v_type text;
  v_expires_in bigint;
  v_id uuid := gen_random_uuid();
  v_err jsonb;
  a swarm.agents;
BEGIN
  IF v_message IS NULL THEN
    PERFORM swarm._invalid('message', 'is required');
  END IF;
  v_to := swarm._str(v_message, 'to', 'message.to');
  v_type := swarm._enum(v_message, 'type', 'message.type', ARRAY['task.help_needed', 'task.handoff',
              'file.lock_request', 'coordination.sync', 'info.discovery', 'custom']);
  IF v_type IS NULL THEN
    PERFORM swarm._invalid('message.type', 'is required');
  END IF;
  v_expires_in := swarm._int(v_message, 'expiresIn', 'message.expiresIn');
  IF v_expires_in IS NOT NULL AND (v_expires_in < 1 OR v_expires_in > 2592000000) THEN
    PERFORM swarm._invalid('message.expiresIn', 'must be between 1 and 2592000000');
  END IF;

  SELECT * INTO a FROM swarm.agents WHERE id = v_agent_id FOR NO KEY UPDATE;
  v_err := swarm._agent_error(a, v_agent_id, p_principal, p_admin);
  IF v_err IS NOT NULL THEN
    RETURN v_err;
  END IF;
  IF v_to IS NOT NULL AND NOT EXISTS (SELECT 1 FROM swarm.agents WHERE id = v_to) THEN
    RETURN swarm._err('recipient_not_registered', 'not_found', format('no agent %s to send to', v_to),
                      jsonb_build_object('field', 'message.to'));
  END IF;
  INSERT INTO swarm.messages (id, from_agent, to_agent, type, payload, ack_required, created_at, expires_at)
  VALUES (v_id, v_agent_id, v_to, v_type, v_message -> 'payload',
          coalesce(swarm._bool(v_message, 'ackRequired', 'message.ackRequired'), false), p_now,
          p_now + v_expires_in * interval '1 millisecond');
  PERFORM swarm._emit('message', 'sent', v_id::text, p_now, jsonb_build_object(
    'from', v_agent_id, 'to', v_to, 'type', v_type,
    'ackRequired', coalesce(swarm._bool(v_message, 'ackRequired', 'message.ackRequired'), false)));
  RETURN swarm._ok(jsonb_build_object('success', true, 'messageId', v_id));
END $$;

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

CREATE OR REPLACE FUNCTION swarm.op_ack_message(p_req jsonb, p_now timestamptz, p_principal uuid, p_admin boolean)
RETURNS jsonb LANGUAGE plpgsql AS $$
DECLARE
  v_agent_id text := swarm._req_str(p_req, 'agentId', 'agentId');
  v_message_id text := swarm._req_str(p_req, 'messageId', 'messageId');
  v_err jsonb;
  v_acked timestamptz;
  a swarm.agents;
  m swarm.messages;
BEGIN
  IF v_message_id !~* '^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$' THEN
    PERFORM swarm._invalid('messageId', 'must be a message id (UUID)');
  END IF;
  SELECT * INTO a FROM swarm.agents WHERE id = v_agent_id FOR NO KEY UPDATE;
  v_err := swarm._agent_error(a, v_agent_id, p_principal, p_admin);
  IF v_err IS NOT NULL THEN
    RETURN v_err;
  END IF;
  SELECT * INTO m FROM swarm.messages WHERE id = v_message_id::uuid;
  IF NOT FOUND OR NOT (m.to_agent = v_agent_id OR (m.to_agent IS NULL AND m.from_agent <> v_agent_id)) THEN
    RETURN swarm._err('message_not_found', 'not_found', format('no message %s for agent %s', v_message_id, v_agent_id));
  END IF;
  SELECT acked_at INTO v_acked FROM swarm.message_receipts WHERE message_id = m.id AND agent_id = v_agent_id;
  IF v_acked IS NULL THEN
    INSERT INTO swarm.message_receipts AS x (message_id, agent_id, delivered_at, acked_at)
    VALUES (m.id, v_agent_id, p_now, p_now)
    ON CONFLICT (message_id, agent_id) DO UPDATE SET acked_at = p_now;
    PERFORM swarm._emit('message', 'acked', m.id::text, p_now, jsonb_build_object('by', v_agent_id, 'type', m.type));
  END IF;
  RETURN swarm._ok(jsonb_build_object('success', true, 'messageId', m.id, 'ackedAt', swarm._iso(coalesce(v_acked, p_now))));
END $$;

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
