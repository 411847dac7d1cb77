-- A task that an agent program works as a gateway conversation (./conclave agent --swarm) records
-- that conversation's key, swarm:<taskId>, once the gateway has taken the task's message: the
-- console links the task to it. Nullable, no default: adding it rewrites nothing.
ALTER TABLE swarm.tasks ADD COLUMN conversation_key text;
