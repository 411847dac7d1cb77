-- The requests waiting for their agent (WaitingRequests): sent and queued, not yet taken by an agent
-- session. Read every 15 s by every gateway node, so it must stay cheap with a long history: it is
-- answered from the partial index requests_queue (WHERE state = 'queued'), which holds only the
-- waiting requests, never the finished ones (WaitingRequestsReadTest checks the plan).

-- name: Waiting
-- how many wait, and how long the oldest has waited in seconds (0 when none), by PostgreSQL's clock,
-- the one that set created_at
SELECT count(*) AS waiting,
       coalesce(greatest(extract(epoch FROM now() - min(created_at)), 0), 0)::float8 AS oldest_seconds
FROM gateway.requests
WHERE state = 'queued';
