-- No planner statistics for swarm.tasks.words. No query filters or sorts on it (related learnings are
-- found by matching learnings against it), so its statistics were never read; but
-- to build them, every ANALYZE of the tasks sorted 30,000 sampled tsquery values with tsquery_cmp,
-- which rebuilds both query trees on each comparison. On 20,000 tasks that took ANALYZE from about
-- 147 to about 402 ms, and autovacuum analyzes the tasks after every 5 % of them change (V1): in
-- SwarmBench a profile of PostgreSQL during the measured phase found a fifth of its CPU in one such
-- ANALYZE.
ALTER TABLE swarm.tasks ALTER COLUMN words SET STATISTICS 0;
