-- Session protocol sessions: whose they are, what they follow, and their last task (ClientSessionStore).

-- name: Find
SELECT session_id, principal_id, agent_id, conversation_key, task_request_id, task_sub_id
FROM gateway.client_sessions WHERE session_id = :session_id;

-- name: Configure
-- Creates or reconfigures a session of :principal_id; no row is written when the id is another
-- principal's. The last task is kept only with :keep_task.
INSERT INTO gateway.client_sessions AS s (session_id, principal_id, agent_id, conversation_key)
VALUES (:session_id, :principal_id, :agent_id, :conversation_key)
ON CONFLICT (session_id) DO UPDATE
  SET agent_id = EXCLUDED.agent_id, conversation_key = EXCLUDED.conversation_key,
      task_request_id = CASE WHEN :keep_task THEN s.task_request_id END,
      task_sub_id = CASE WHEN :keep_task THEN s.task_sub_id END, updated_at = now()
  WHERE s.principal_id = EXCLUDED.principal_id;

-- name: Task
UPDATE gateway.client_sessions SET task_request_id = :request_id, task_sub_id = :sub_id, updated_at = now()
WHERE session_id = :session_id;
