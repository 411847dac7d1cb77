-- Repeatable migration (Flyway R__): the swarm operation ACK_MESSAGE, its checks and its effect. Flyway runs this file again
-- whenever it changes, after the versioned migrations (tables, indexes) in this directory; edit the
-- function here instead of adding a versioned migration. CREATE OR REPLACE keeps a function's
-- signature: to change its arguments or return type, DROP it first in this file.
-- Function bodies are checked when called, not here, so the files may run in any order.
SET LOCAL check_function_bodies = off;

-- Swarm coordinator: ACK_MESSAGE ({agentId, messageId}), not in the spec's list: acknowledges a
-- message that asked for it.

-- ACK_MESSAGE's first checks, which swarm.dispatch runs before the signed-agent check and the rate limit:
-- the agentId's format (the message id's is the operation's check). The error of the first member that breaks one, or NULL.
-- JSON types, required members and enumerations are checked after them, by the operation itself.
CREATE OR REPLACE FUNCTION swarm.check_ack_message(p_req jsonb, p_options jsonb DEFAULT '{}'::jsonb)
RETURNS jsonb LANGUAGE sql STABLE AS $$
  SELECT coalesce(
    swarm._c_id(p_req, 'agentId', 'agentId'))
$$;

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
