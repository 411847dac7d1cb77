-- The mailbox table (RequestStore). Every state change is a conditional update, so concurrent actors
-- (the agent's session, a cancel, a node cleaning up after a dead one) can never end a request twice.
--
-- Takes-work, written out where a request is dispatched (DispatchNext here, EnqueueWithInbound in
-- mailbox/mailbox.sql): the session of epoch :epoch is the agent's newest, and the agent is Running (a Paused,
-- Maintaining, Evolving or Retiring agent's mailbox holds its requests):
--   (SELECT epoch = :epoch AND lifecycle = 'running' FROM gateway.agents WHERE agent_id = :agent_id)

-- name: DispatchNext
-- Hands the agent's oldest queued request to the session :epoch on :node, if that session takes work
-- and nothing else is in flight (the partial unique index requests_one_in_flight enforces it), and
-- says whether others stay queued. The statement's snapshot still shows the dispatched row as queued:
-- hence q.id <> requests.id.
UPDATE gateway.requests SET state = 'dispatched', dispatched_at = now(), dispatch_epoch = :epoch, dispatch_node = :node
WHERE id = (SELECT id FROM gateway.requests WHERE agent_id = :agent_id AND state = 'queued' ORDER BY queue_seq LIMIT 1 FOR UPDATE SKIP LOCKED)
  AND NOT EXISTS (SELECT 1 FROM gateway.requests WHERE agent_id = :agent_id AND state = 'dispatched')
  AND (SELECT epoch = :epoch AND lifecycle = 'running' FROM gateway.agents WHERE agent_id = :agent_id)
RETURNING id, agent_id, conversation_key, principal_id, sender, content, attachments, state, created_at,
          dispatched_at, dispatch_epoch, dispatch_node, finished_at, cancel_reason, approve_all, trace_context,
          EXISTS (SELECT 1 FROM gateway.requests q WHERE q.agent_id = :agent_id AND q.state = 'queued' AND q.id <> requests.id) AS more_queued;

-- name: DispatchedTo
-- The request dispatched to the session (:agent_id, :epoch, :node) and still in flight.
SELECT id, agent_id, conversation_key, principal_id, sender, content, attachments, state, created_at,
       dispatched_at, dispatch_epoch, dispatch_node, finished_at, cancel_reason, approve_all, trace_context
FROM gateway.requests
WHERE agent_id = :agent_id AND state = 'dispatched' AND dispatch_epoch = :epoch AND dispatch_node = :node;

-- name: Requeue
-- A dispatched request back in the queue: its SendMessage was never written to the agent.
UPDATE gateway.requests SET state = 'queued', dispatched_at = NULL, dispatch_epoch = NULL, dispatch_node = NULL
WHERE id = :id AND state = 'dispatched' AND dispatch_epoch = :epoch;

-- name: Cancel
-- Ends a request that is queued or in flight as cancelled, answering the state it was in; no row
-- when it had already ended.
UPDATE gateway.requests r SET state = 'cancelled', finished_at = now(), cancel_requested_at = now(), cancel_reason = :reason
FROM (SELECT id, state FROM gateway.requests WHERE id = :id FOR UPDATE) old
WHERE r.id = old.id AND old.state IN ('queued', 'dispatched')
RETURNING old.state, r.agent_id, r.conversation_key;

-- name: MarkCancelRequested
-- A cancel asked of the agent (it will answer with its own terminal event).
UPDATE gateway.requests SET cancel_requested_at = now(), cancel_reason = :reason WHERE id = :id AND state = 'dispatched';

-- name: EndInFlightOfAgent
-- The agent's requests in flight on sessions up to :max_epoch, ended as errors.
UPDATE gateway.requests SET state = 'error', finished_at = now()
WHERE agent_id = :agent_id AND state = 'dispatched' AND dispatch_epoch <= :max_epoch
RETURNING id, agent_id, conversation_key;

-- name: EndInFlight
-- One request still in flight on the session :epoch, ended as an error.
UPDATE gateway.requests SET state = 'error', finished_at = now()
WHERE id = :id AND state = 'dispatched' AND dispatch_epoch = :epoch
RETURNING id, agent_id, conversation_key;

-- name: EndQueuedOfAgent
-- The agent's queued requests, ended as errors (it was retired and will never take them).
UPDATE gateway.requests SET state = 'error', finished_at = now()
WHERE agent_id = :agent_id AND state = 'queued'
RETURNING id, agent_id, conversation_key;

-- name: EndInFlightOnNode
-- Every request in flight on a node that is gone, ended as an error.
UPDATE gateway.requests SET state = 'error', finished_at = now()
WHERE dispatch_node = :node AND state = 'dispatched'
RETURNING id, agent_id, conversation_key;

-- name: EndInFlightNotOn
-- Every request in flight on a node not among :live_nodes, ended as an error.
UPDATE gateway.requests SET state = 'error', finished_at = now()
WHERE state = 'dispatched' AND NOT (dispatch_node = ANY (:live_nodes))
RETURNING id, agent_id, conversation_key;

-- name: EndInFlightStrandedOn
-- Requests in flight on :node whose session (agent, epoch) is not among those the node holds
-- (:agents and :epochs, pairwise), ended as errors. A session that registered after the caller's
-- snapshot may have dispatched just now: hence the five seconds.
UPDATE gateway.requests r SET state = 'error', finished_at = now()
WHERE r.dispatch_node = :node AND r.state = 'dispatched'
  AND r.dispatched_at < now() - interval '5 seconds'
  AND NOT EXISTS (SELECT 1 FROM unnest(:agents::text[], :epochs::bigint[]) AS s(agent_id, epoch)
                  WHERE s.agent_id = r.agent_id AND s.epoch = r.dispatch_epoch)
RETURNING id, agent_id, conversation_key;

-- name: SetApproveAll
UPDATE gateway.requests SET approve_all = true WHERE id = :id AND state = 'dispatched';

-- name: InFlightOf
SELECT id, agent_id, conversation_key, principal_id, sender, content, attachments, state, created_at,
       dispatched_at, dispatch_epoch, dispatch_node, finished_at, cancel_reason, approve_all, trace_context
FROM gateway.requests WHERE agent_id = :agent_id AND state = 'dispatched';

-- name: AllInFlight
SELECT agent_id, id FROM gateway.requests WHERE state = 'dispatched';

-- name: IdempotencyKey
SELECT idempotency_key FROM gateway.requests WHERE id = :id;

-- name: Find
SELECT id, agent_id, conversation_key, principal_id, sender, content, attachments, state, created_at,
       dispatched_at, dispatch_epoch, dispatch_node, finished_at, cancel_reason, approve_all, trace_context
FROM gateway.requests WHERE id = :id;
