-- The attempts of traced tasks that events just ended (AttemptTraces).

-- name: Attempts
-- For each (task, ending event seq) pair: the task's trace context, the attempt's number (the task's
-- claims up to it) and the task's history from the attempt's claim to that event, oldest first. A
-- task without a trace context, or an end with no claim before it, gives no rows. The history is
-- written in the transaction that made each change, so it is complete once the ending event is
-- published, whichever node handled the attempt's other requests.
SELECT e.task_id, e.end_seq, t.trace_context, a.attempt, h.seq, h.kind, h.event,
       (extract(epoch FROM h.at) * 1000)::bigint AS at_ms, h.data
  FROM unnest(:task_ids::text[], :end_seqs::bigint[]) AS e(task_id, end_seq)
  JOIN swarm.tasks t ON t.id = e.task_id AND t.trace_context IS NOT NULL
 CROSS JOIN LATERAL (
       SELECT max(c.seq) AS claim_seq, count(*) AS attempt
         FROM swarm.task_history c
        WHERE c.task_id = e.task_id AND c.kind = 'task' AND c.event = 'claimed' AND c.seq < e.end_seq) a
  JOIN swarm.task_history h ON h.task_id = e.task_id AND h.seq BETWEEN a.claim_seq AND e.end_seq
 ORDER BY e.end_seq, h.seq
