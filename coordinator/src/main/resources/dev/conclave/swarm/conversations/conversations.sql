-- A claimed task handed to the gateway as a conversation (POST /api/v1/tasks/:id/conversation).

-- name: Target
-- What opening a task's conversation needs, read in one round trip: why the caller may not act for
-- the agent (swarm._agent_error, the protocol's own rule; NULL when it may), the task, what its
-- dependencies produced (in the order the task lists them) and the learnings of related tasks (the
-- claim's own function, so the prompt offers what the claim offered).
SELECT swarm._agent_error(a, :agent_id::text, :principal::uuid, :admin::boolean) AS agent_error,
       swarm.task_json(t) AS task,
       (SELECT coalesce(jsonb_agg(jsonb_strip_nulls(jsonb_build_object('id', d.id, 'title', d.title, 'status', d.status,
                          'completedBy', d.completed_by, 'result', d.result))
                        ORDER BY array_position(t.dependencies, d.id)), '[]'::jsonb)
          FROM swarm.tasks d WHERE d.id = ANY (t.dependencies)) AS dependencies,
       CASE WHEN t.id IS NULL THEN '[]'::jsonb ELSE swarm.related_learnings(t) END AS learnings
  FROM (SELECT 1) one
  LEFT JOIN swarm.agents a ON a.id = :agent_id::text
  LEFT JOIN swarm.tasks t ON t.id = :task_id::text

-- name: Record
-- The gateway took the task's message: the task names its conversation (dashboards link to it), and
-- a 'conversation' event goes to the outbox. Only while the agent still holds the task, and only for a
-- new message (a repeated call, which the gateway answered as a duplicate, changes nothing).
UPDATE swarm.tasks
   SET conversation_key = :conversation_key::text
 WHERE id = :task_id::text AND assigned_agent = :agent_id::text AND status IN ('claimed', 'in_progress')
   AND (conversation_key IS DISTINCT FROM :conversation_key::text OR :request_id::text IS NOT NULL)
RETURNING swarm._emit('task', 'conversation', id, :now::timestamptz,
                      jsonb_build_object('agentId', assigned_agent, 'conversationKey', conversation_key,
                                         'requestId', :request_id::text)) AS seq
