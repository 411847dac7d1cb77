-- Repeatable migration (Flyway R__): the swarm operation SEND_MESSAGE, its checks and its effect. Flyway runs this file again
-- whenever it changes, after the versioned migrations (tables, indexes) in this directory; edit the
-- function here instead of adding a versioned migration. CREATE OR REPLACE keeps a function's
-- signature: to change its arguments or return type, DROP it first in this file.
-- Function bodies are checked when called, not here, so the files may run in any order.
SET LOCAL check_function_bodies = off;

-- Swarm coordinator: SEND_MESSAGE. A message goes to one agent ("to") or, without "to", to every other
-- agent registered when it was sent or later (a broadcast).

-- SEND_MESSAGE's first checks, which swarm.dispatch runs before the signed-agent check and the rate limit:
-- the ids' format and the payload's size (counted by the coordinator, in its encoding). The error of the first member that breaks one, or NULL.
-- JSON types, required members and enumerations are checked after them, by the operation itself.
CREATE OR REPLACE FUNCTION swarm.check_send_message(p_req jsonb, p_options jsonb DEFAULT '{}'::jsonb)
RETURNS jsonb LANGUAGE sql STABLE AS $$
  SELECT coalesce(
    swarm._c_id(p_req, 'agentId', 'agentId'),
    swarm._c_java(p_options, 'message.payload'),
    swarm._c_id(p_req -> 'message', 'to', 'message.to'))
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
