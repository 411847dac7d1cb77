-- The claim order's rank of a priority, as a function instead of a stored generated column.
-- PostgreSQL parses a table's generation expressions again in every statement that updates a row of
-- it (ExecInitStoredGenerated), and every CLAIM and COMPLETE updates its task: about 4 % of a
-- claim+complete's time in PostgreSQL went to reading this one CASE back from the catalog. The
-- claim-order index now holds the rank as an expression, computed only when a task enters it (becomes
-- ready). The function lives here, not in a repeatable migration, because the index stores its
-- results: changing it means a new versioned migration that rebuilds the index.
CREATE FUNCTION swarm.priority_rank(priority swarm.task_priority) RETURNS smallint
LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
  SELECT (CASE priority WHEN 'critical' THEN 0 WHEN 'high' THEN 1 WHEN 'medium' THEN 2 ELSE 3 END)::smallint
$$;

DROP INDEX swarm.tasks_claimable;
ALTER TABLE swarm.tasks DROP COLUMN priority_rank;
-- the claim order; only ready tasks are in it
CREATE INDEX tasks_claimable ON swarm.tasks (swarm.priority_rank(priority), created_at, seq) WHERE status = 'ready';
