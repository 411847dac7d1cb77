-- Bindings the gateway writes itself (operators' bindings go through BindingStore's other methods).

-- name: BindTask
-- Points a swarm task's conversation (swarm:<taskId>) at the agent that holds the task now: a new
-- binding, or the task's binding moved from the agent that held it before (a retry elsewhere).
INSERT INTO gateway.bindings (id, frontend, channel_id, agent_id, created_by)
VALUES (:id, :frontend, :channel_id, :agent_id, :created_by)
ON CONFLICT (frontend, channel_id) DO UPDATE SET agent_id = EXCLUDED.agent_id
