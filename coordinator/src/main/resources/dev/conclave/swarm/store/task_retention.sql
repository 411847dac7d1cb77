-- Retention of finished swarm tasks (TaskRetention): a task in a terminal state (completed, failed,
-- cancelled) not changed for the window goes, with its history, in one statement per batch. No new
-- index: one on updated_at would stop the frequent updates of live tasks from being HOT; the batch
-- walks tasks_by_status (status, seq), oldest tasks first.

-- name: DeleteBatch
WITH doomed AS (
  SELECT id FROM swarm.tasks
  WHERE status IN ('completed', 'failed', 'cancelled') AND updated_at < now() - :window_s * interval '1 second'
  LIMIT :limit
  FOR UPDATE SKIP LOCKED),
gone AS (
  DELETE FROM swarm.tasks t USING doomed d WHERE t.id = d.id AND t.status IN ('completed', 'failed', 'cancelled') RETURNING t.*),
history AS (
  DELETE FROM swarm.task_history h USING gone g WHERE h.task_id = g.id RETURNING h.*)
SELECT 'tasks' AS kind, to_jsonb(g)::text AS line FROM gone g
UNION ALL
SELECT 'task-history' AS kind, to_jsonb(h)::text AS line FROM history h;
