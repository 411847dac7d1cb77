-- Retention of conversations (ConversationRetention): ledger events and finished requests past their
-- window. Each statement deletes one batch and returns the deleted rows as JSON, for the archive and
-- for a restore (ConversationRestore).

-- name: DeleteEvents
-- events older than the window, except each conversation's latest :keep (by seq, from the conversation's
-- counter) and the events of requests not finished yet (queued or dispatched), which they still need.
-- An agent with a row in agent_retention has its own window and keep where set (by_agent, walked from
-- the agent to its conversations and their events by key); every other agent has the node's (by_setting,
-- walked by created_at). The two sets are disjoint and share the batch: by_setting takes what is left.
WITH by_agent AS (
  SELECT e.conversation_key, e.seq FROM gateway.agent_retention ar
  JOIN gateway.conversations c ON c.agent_id = ar.agent_id
  JOIN gateway.events e ON e.conversation_key = c.conversation_key
  WHERE e.seq <= c.last_seq - coalesce(ar.keep_events, :keep::int)
    AND e.created_at < now() - coalesce(ar.conversation_days::bigint * 86400, :window_s::bigint) * interval '1 second'
    AND NOT EXISTS (SELECT 1 FROM gateway.requests r WHERE r.id = e.request_id AND r.state IN ('queued', 'dispatched'))
  LIMIT :limit::int
  FOR UPDATE OF e SKIP LOCKED),
by_setting AS (
  SELECT e.conversation_key, e.seq FROM gateway.events e
  JOIN gateway.conversations c ON c.conversation_key = e.conversation_key
  WHERE e.created_at < now() - :window_s::bigint * interval '1 second'
    AND e.seq <= c.last_seq - :keep::int
    AND NOT EXISTS (SELECT 1 FROM gateway.agent_retention ar WHERE ar.agent_id = c.agent_id)
    AND NOT EXISTS (SELECT 1 FROM gateway.requests r WHERE r.id = e.request_id AND r.state IN ('queued', 'dispatched'))
  LIMIT :limit::int - (SELECT count(*) FROM by_agent)
  FOR UPDATE OF e SKIP LOCKED),
-- each set deleted by key on its own, so that the planner sees a small set to join, never a table scan
gone_by_agent AS (
  DELETE FROM gateway.events e USING by_agent d WHERE e.conversation_key = d.conversation_key AND e.seq = d.seq RETURNING e.*),
gone_by_setting AS (
  DELETE FROM gateway.events e USING by_setting d WHERE e.conversation_key = d.conversation_key AND e.seq = d.seq RETURNING e.*)
SELECT 'events' AS kind, to_jsonb(g)::text AS line FROM gone_by_agent g
UNION ALL SELECT 'events', to_jsonb(g)::text FROM gone_by_setting g;

-- name: DeleteRequests
-- finished requests older than the window whose events are all gone (a request a kept event names stays),
-- with what the agent reported about them: approvals, tool-call states, questions. An agent with its own
-- conversation window (agent_retention.conversation_days) has its requests follow that window (by_agent);
-- every other agent's follow :window_s (by_setting). Disjoint, sharing the batch as DeleteEvents does.
WITH by_agent AS (
  SELECT r.id FROM gateway.agent_retention ar
  JOIN gateway.requests r ON r.agent_id = ar.agent_id
  WHERE ar.conversation_days IS NOT NULL
    AND r.state IN ('done', 'error', 'cancelled')
    AND r.finished_at < now() - ar.conversation_days * interval '1 day'
    AND NOT EXISTS (SELECT 1 FROM gateway.events e WHERE e.request_id = r.id)
  LIMIT :limit::int
  FOR UPDATE OF r SKIP LOCKED),
by_setting AS (
  SELECT r.id FROM gateway.requests r
  WHERE r.state IN ('done', 'error', 'cancelled')
    AND r.finished_at < now() - :window_s::bigint * interval '1 second'
    AND NOT EXISTS (SELECT 1 FROM gateway.agent_retention ar WHERE ar.agent_id = r.agent_id AND ar.conversation_days IS NOT NULL)
    AND NOT EXISTS (SELECT 1 FROM gateway.events e WHERE e.request_id = r.id)
  LIMIT :limit::int - (SELECT count(*) FROM by_agent)
  FOR UPDATE SKIP LOCKED),
-- each set deleted by key on its own, as DeleteEvents does
gone_by_agent AS (
  DELETE FROM gateway.requests r USING by_agent d WHERE r.id = d.id RETURNING r.*),
gone_by_setting AS (
  DELETE FROM gateway.requests r USING by_setting d WHERE r.id = d.id RETURNING r.*),
gone AS (
  SELECT * FROM gone_by_agent UNION ALL SELECT * FROM gone_by_setting),
approvals AS (
  DELETE FROM gateway.approvals a USING gone g WHERE a.request_id = g.id RETURNING a.*),
tool_calls AS (
  DELETE FROM gateway.tool_calls t USING gone g WHERE t.request_id = g.id RETURNING t.*),
questions AS (
  DELETE FROM gateway.questions q USING gone g WHERE q.request_id = g.id RETURNING q.*)
SELECT 'requests' AS kind, to_jsonb(g)::text AS line FROM gone g
UNION ALL SELECT 'approvals', to_jsonb(a)::text FROM approvals a
UNION ALL SELECT 'request-tool-calls', to_jsonb(t)::text FROM tool_calls t
UNION ALL SELECT 'questions', to_jsonb(q)::text FROM questions q;

-- name: RestoreRequests
-- archived requests (ConversationRestore); one already there (same id or idempotency key) is left as it is
INSERT INTO gateway.requests
SELECT * FROM jsonb_populate_recordset(NULL::gateway.requests, :rows::text::jsonb)
ON CONFLICT DO NOTHING;

-- name: RestoreApprovals
INSERT INTO gateway.approvals
SELECT * FROM jsonb_populate_recordset(NULL::gateway.approvals, :rows::text::jsonb)
ON CONFLICT DO NOTHING;

-- name: RestoreToolCalls
INSERT INTO gateway.tool_calls
SELECT * FROM jsonb_populate_recordset(NULL::gateway.tool_calls, :rows::text::jsonb)
ON CONFLICT DO NOTHING;

-- name: RestoreQuestions
INSERT INTO gateway.questions
SELECT * FROM jsonb_populate_recordset(NULL::gateway.questions, :rows::text::jsonb)
ON CONFLICT DO NOTHING;

-- name: RestoreEvents
-- archived events, with their own seq; one already there is left as it is, so a second restore adds nothing
INSERT INTO gateway.events
SELECT * FROM jsonb_populate_recordset(NULL::gateway.events, :rows::text::jsonb)
ON CONFLICT DO NOTHING;

-- name: RestoreConversation
-- the conversation's counter never falls below a restored seq (it normally is above already: the row is never deleted)
INSERT INTO gateway.conversations (conversation_key, agent_id, last_seq)
SELECT :conversation_key::text, :agent_id::text, :last_seq::bigint WHERE :agent_id::text IS NOT NULL
ON CONFLICT (conversation_key) DO UPDATE SET last_seq = greatest(gateway.conversations.last_seq, EXCLUDED.last_seq);
