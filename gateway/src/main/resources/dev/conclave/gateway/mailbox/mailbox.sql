-- A client's message (Mailbox): its request and its inbound ledger event, written in one statement.
-- The append is the ledger's two steps (store/ledger.sql: advance the conversation's counter by
-- :count, creating the conversation on its first event, then insert the :count entries given one
-- array per column, :request_ids ... :ats; CTEs c and e), bound by LedgerStore.bindEntries.
--
-- EnqueueWithInbound writes out two rules that other statements use as well:
--   routes: the agent conversation :conversation_key goes to: the one bound to <frontend>:<channel>,
--     else the known agent whose id is the key (bindings.sql's Route: the route lookup); a retired
--     agent takes no message;
--   may act: AgentAccess's rule (platform access.sql's Check; AccessRuleTest keeps them in agreement):
--     the agent's own principal, the owner of that principal, or a grantee.
-- and takes-work, as requests.sql's DispatchNext.

-- name: EnqueueWithInbound
-- A new request and its inbound event, in one statement. Request :request_id of principal
-- :principal_id (:sender, :idempotency_key, :content, :attachments, trace context :trace_context) is
-- queued for agent :agent_id in conversation :conversation_key and the event appended, unless the
-- (principal, idempotency key) pair was used before: then nothing is written. With a session
-- :dispatch_epoch (on :dispatch_node) the request is dispatched to it at once instead, when the agent
-- takes work and has nothing queued or in flight. Nothing is written either unless the conversation
-- (of :frontend and :channel) still routes to the agent and it is not retired (r.routed: the node may
-- have taken the route from what it remembered), nor unless the principal may act on the agent or is
-- an admin (:admin; r.allowed). Answers routed, allowed, the event's first_seq (null: nothing written)
-- and the request's row.
WITH r AS (
  SELECT COALESCE(
           COALESCE((SELECT agent_id FROM gateway.bindings WHERE frontend = :frontend::text AND channel_id = :channel::text),
                    (SELECT agent_id FROM gateway.agents WHERE agent_id = :conversation_key)) = :agent_id
           AND NOT COALESCE((SELECT lifecycle = 'retired' FROM gateway.agents WHERE agent_id = :agent_id), false),
           false) AS routed,
         :admin::boolean
           OR COALESCE((SELECT a.principal_id = :principal_id OR p.owner_id = :principal_id
                          OR EXISTS (SELECT 1 FROM auth.agent_grants g WHERE g.agent_principal_id = a.principal_id AND g.grantee_id = :principal_id)
                        FROM gateway.agents a JOIN auth.principals p ON p.id = a.principal_id WHERE a.agent_id = :agent_id), false) AS allowed),
d AS (
  SELECT COALESCE(:dispatch_epoch::bigint IS NOT NULL
           AND (SELECT epoch = :dispatch_epoch::bigint AND lifecycle = 'running' FROM gateway.agents WHERE agent_id = :agent_id)
           -- (two conditions, not one with IN: each is then answered by its partial index)
           AND NOT EXISTS (SELECT 1 FROM gateway.requests WHERE agent_id = :agent_id AND state = 'queued')
           AND NOT EXISTS (SELECT 1 FROM gateway.requests WHERE agent_id = :agent_id AND state = 'dispatched'), false) AS now),
q AS (
  INSERT INTO gateway.requests (id, agent_id, conversation_key, principal_id, sender, idempotency_key, content, attachments,
                                state, dispatched_at, dispatch_epoch, dispatch_node, trace_context)
  SELECT :request_id, :agent_id, :conversation_key, :principal_id, :sender, :idempotency_key, :content, :attachments,
         CASE WHEN d.now THEN 'dispatched' ELSE 'queued' END, CASE WHEN d.now THEN now() END,
         CASE WHEN d.now THEN :dispatch_epoch::bigint END, CASE WHEN d.now THEN :dispatch_node::text END, :trace_context::text
  FROM d, r WHERE r.routed AND r.allowed
  ON CONFLICT (principal_id, idempotency_key) DO NOTHING
  RETURNING id, agent_id, conversation_key, principal_id, sender, content, attachments, state, created_at,
            dispatched_at, dispatch_epoch, dispatch_node, finished_at, cancel_reason, approve_all, trace_context),
c AS (INSERT INTO gateway.conversations AS c (conversation_key, agent_id, last_seq)
      SELECT :conversation_key::text, :agent_id::text, :count::bigint FROM q
      ON CONFLICT (conversation_key) DO UPDATE SET last_seq = c.last_seq + :count RETURNING last_seq),
e AS (INSERT INTO gateway.events (conversation_key, seq, request_id, kind, author, text, payload, raw, actor_principal_id, created_at)
      SELECT :conversation_key, c.last_seq - :count + u.ord, u.request_id, u.kind, u.author, u.text, u.payload, u.raw, u.actor, u.at
      FROM c, unnest(:request_ids::uuid[], :kinds::text[], :authors::text[], :texts::text[], :payloads::bytea[], :raws::bytea[],
                     :actors::uuid[], :ats::timestamptz[])
        WITH ORDINALITY AS u(request_id, kind, author, text, payload, raw, actor, at, ord)
      RETURNING seq)
SELECT (SELECT routed FROM r) AS routed, (SELECT allowed FROM r) AS allowed, (SELECT min(seq) FROM e) AS first_seq, q.*
FROM (VALUES (true)) one LEFT JOIN q ON true;
