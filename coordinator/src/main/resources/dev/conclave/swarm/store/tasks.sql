-- Operators' reads of tasks. A task's answer is swarm.task_json's, plus the key of the gateway
-- conversation it is worked in when it has one (conversation_key, V16) and its trace context
-- (traceparent, V17) and its uniqueKey (V18): added here rather than in swarm.task_json, whose repeatable file must also
-- run on databases from before V16.

-- name: Create
-- Creates tasks (swarm.create_tasks), each keeping the trace context it was created in (NULL: none).
SELECT swarm.create_tasks(:tasks::jsonb, :now, :default_max_retries, :trace_context::text) AS tasks

-- name: Get
SELECT swarm.task_json(t) || jsonb_strip_nulls(jsonb_build_object('conversationKey', t.conversation_key, 'traceparent', t.trace_context, 'uniqueKey', t.unique_key)) AS task
  FROM swarm.tasks t
 WHERE t.id = :id

-- name: List
-- A page in creation order; a filter that is NULL does not filter. One row more than the page, to tell
-- whether there is a next one.
SELECT t.seq, swarm.task_json(t) || jsonb_strip_nulls(jsonb_build_object('conversationKey', t.conversation_key, 'traceparent', t.trace_context, 'uniqueKey', t.unique_key)) AS task
  FROM swarm.tasks t
 WHERE (:statuses::text[] IS NULL OR t.status = ANY (:statuses))
   AND (:priorities::text[] IS NULL OR t.priority = ANY (:priorities))
   AND (:types::text[] IS NULL OR t.type = ANY (:types))
   AND (:skill::text IS NULL OR t.required_skills @> ARRAY[:skill::text])
   AND (:assigned_agent::text IS NULL OR t.assigned_agent = :assigned_agent)
   AND (:branch::text IS NULL OR t.branch = :branch)
   AND t.seq > :after
 ORDER BY t.seq
 LIMIT :limit

-- name: Retry
-- A failed or cancelled task back in line (swarm.retry_task, R__swarm_bulk.sql).
SELECT swarm.retry_task(:id, :now) AS task

-- name: Bulk
-- One action on every task the filter matches, in one transaction: {action, matched, changed}
-- (swarm.bulk_tasks, R__swarm_bulk.sql).
SELECT swarm.bulk_tasks(:action, :filter::jsonb, :priority::text, :reason::text, :limit, :now) AS outcome

-- name: History
-- The task's history, oldest first: its own events and the lease and message events that name it.
SELECT jsonb_build_object('seq', seq, 'kind', kind, 'event', event,
                          'at', to_char(at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'), 'data', data) AS entry
  FROM swarm.task_history
 WHERE task_id = :id
 ORDER BY seq
 LIMIT :limit
