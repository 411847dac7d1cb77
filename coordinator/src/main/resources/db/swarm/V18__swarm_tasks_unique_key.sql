-- Unique tasks: a task created with a uniqueKey stands for every later create with the same key while
-- it is unfinished, or within the create's uniqueWindowMinutes of its creation (swarm.create_tasks,
-- which serializes creates of one key on an advisory lock). The index finds a key's tasks.
ALTER TABLE swarm.tasks ADD COLUMN unique_key text;
CREATE INDEX tasks_by_unique_key ON swarm.tasks (unique_key, seq) WHERE unique_key IS NOT NULL;
