-- Tool approvals agents asked for, and the decisions humans made (ApprovalStore).

-- name: RecordPending
INSERT INTO gateway.approvals (request_id, tool_id, agent_id, conversation_key, tool_name, input_json, ledger_seq, state)
VALUES (:request_id, :tool_id, :agent_id, :conversation_key, :tool_name, :input_json, :ledger_seq, 'pending')
ON CONFLICT (request_id, tool_id) DO NOTHING;

-- name: RecordAutoApproved
-- An approval granted without asking: approve_all was given earlier in the same request.
INSERT INTO gateway.approvals (request_id, tool_id, agent_id, conversation_key, tool_name, input_json, ledger_seq, state, decided_at)
VALUES (:request_id, :tool_id, :agent_id, :conversation_key, :tool_name, :input_json, :ledger_seq, 'approved', now())
ON CONFLICT (request_id, tool_id) DO NOTHING;

-- name: Decide
-- Decides (:state 'approved' or 'denied') the pending approval of :tool_id in the agent's request in
-- flight; no row when none is pending (already decided, unknown, or its request ended).
UPDATE gateway.approvals a SET state = :state, decided_at = now(), decided_by = :decided_by
FROM gateway.requests r
WHERE a.agent_id = :agent_id AND a.tool_id = :tool_id AND a.state = 'pending'
  AND r.id = a.request_id AND r.state = 'dispatched'
RETURNING a.request_id, a.conversation_key;

-- name: PendingIn
-- Approvals still waiting for a human in a conversation whose request is in flight.
SELECT a.request_id, a.tool_id, a.agent_id, a.tool_name, a.input_json, a.ledger_seq
FROM gateway.approvals a
JOIN gateway.requests r ON r.id = a.request_id
WHERE a.conversation_key = :conversation_key AND a.state = 'pending' AND r.state = 'dispatched'
ORDER BY a.ledger_seq;

-- name: ExpireOf
-- A request's pending approvals, once it ended.
UPDATE gateway.approvals SET state = 'expired', decided_at = now() WHERE request_id = :request_id AND state = 'pending';
