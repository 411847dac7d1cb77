-- Context injected into agents and what the agents answered (InjectionStore).

-- name: RecordSent
INSERT INTO gateway.injections (id, agent_id, content, priority, source, state, created_by)
VALUES (:id, :agent_id, :content, :priority, :source, 'sent', :created_by);

-- name: MarkUndelivered
UPDATE gateway.injections SET state = 'undelivered', reason = :reason WHERE id = :id AND state = 'sent';

-- name: RecordAck
-- The agent's InjectionAck (:state 'accepted' or 'rejected'); no row when the injection is not this agent's.
UPDATE gateway.injections SET state = :state, reason = :reason, acked_at = now() WHERE id = :id AND agent_id = :agent_id;

-- name: Find
SELECT id, agent_id, priority, source, state, reason, created_at, acked_at FROM gateway.injections WHERE id = :id;
