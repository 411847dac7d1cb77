-- Schedules (periodic tasks): the operators' reads and writes, and the tick every coordinator node
-- runs. A tick fires one schedule per transaction: Bound, Due (locks one due row, skipping rows
-- another node holds), then Fire or Walk, then COMMIT; so a slot fires once across the cluster, and
-- the task's uniqueKey ('schedule:<name>:<slot>') makes even a replay of a fired slot no second task.

-- name: Create
-- Nothing when the name is in use (the caller answers 409).
INSERT INTO swarm.schedules AS s (name, cron, every, timezone, task, next_run_at, created_at)
VALUES (:name, :cron::text, :every::text, :timezone, :task::jsonb, :next_run_at, :now)
ON CONFLICT (name) DO NOTHING
RETURNING swarm.schedule_json(s) AS schedule

-- name: Get
SELECT swarm.schedule_json(s) AS schedule FROM swarm.schedules s WHERE s.name = :name

-- name: List
SELECT swarm.schedule_json(s) AS schedule FROM swarm.schedules s ORDER BY s.name LIMIT :limit

-- name: Delete
DELETE FROM swarm.schedules s WHERE s.name = :name RETURNING swarm.schedule_json(s) AS schedule

-- name: Bound
-- Each statement of the tick's transaction stops after :millis (a lock wait or a slow disk never holds a tick for long).
SELECT set_config('statement_timeout', :millis::text, true)

-- name: Due
SELECT s.name, s.cron, s.every, s.timezone, s.task, s.next_run_at
  FROM swarm.schedules s
 WHERE s.next_run_at <= :now
 ORDER BY s.next_run_at, s.name
 LIMIT 1
   FOR UPDATE SKIP LOCKED

-- name: Fire
-- Makes the slot's task (swarm.create_tasks; a task with the key already there stands for it and is
-- not counted again) and moves the schedule to its next slot, counting the slots skipped.
WITH made AS (
  SELECT swarm.create_tasks(jsonb_build_array(:task::jsonb || jsonb_build_object('uniqueKey', :unique_key::text,
                                                                                 'uniqueWindowMinutes', 525600)),
                            :now, :default_max_retries, NULL::text) -> 0 AS task)
UPDATE swarm.schedules s
   SET next_run_at = :next_run_at, last_run_at = :slot, last_task_id = m.task ->> 'id', last_error = NULL,
       runs = s.runs + CASE WHEN m.task ? 'existing' THEN 0 ELSE 1 END, missed_runs = s.missed_runs + :missed
  FROM made m
 WHERE s.name = :name
RETURNING m.task ->> 'id' AS task_id, m.task ? 'existing' AS existing

-- name: Walk
-- Moves a schedule on without making a task: through a long downtime's slots (counted missed), or past
-- a slot whose task could not be made (:error says why). Only if no node moved it since :expected.
UPDATE swarm.schedules s
   SET next_run_at = :next_run_at, missed_runs = s.missed_runs + :missed, last_error = coalesce(:error::text, s.last_error)
 WHERE s.name = :name AND s.next_run_at = :expected
