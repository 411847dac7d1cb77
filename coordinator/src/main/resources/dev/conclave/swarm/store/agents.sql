-- Agents for operators (list, read, queue heartbeat commands) and the learnings search.

-- name: List
-- In registration order; a NULL status does not filter.
SELECT swarm.agent_json(a) AS agent
  FROM swarm.agents a
 WHERE (:status::text IS NULL OR a.status = :status)
 ORDER BY a.first_registered_at, a.id
 LIMIT 1000

-- name: Get
SELECT swarm.agent_json(a) AS agent FROM swarm.agents a WHERE a.id = :id

-- name: QueueCommand
-- A validated command for the agent's next heartbeat (swarm.queue_command, R__swarm_tasks.sql).
SELECT swarm.queue_command(:agent_id, :command::jsonb, :now) AS command

-- name: SearchLearnings
-- Full-text search (web-search syntax), best match first.
SELECT swarm.search_learnings(:query, :limit) AS learnings
