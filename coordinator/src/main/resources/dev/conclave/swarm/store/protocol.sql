-- Protocol requests, through the swarm's one batch entry point (swarm.dispatch_batch_parts, R__swarm_dispatch.sql).

-- name: Dispatch
-- The batch's results split into their responses (text) and errors (JSON), with its events captured
-- rather than put in the outbox. (From the function's parts: its results as one JSON object cost
-- PostgreSQL two copies of every answer.)
SELECT s.oks, s.errors, b.events
  FROM swarm.dispatch_batch_parts(:items::jsonb, :now, true) b,
       LATERAL (SELECT array_agg((r.x -> 'ok')::text ORDER BY r.o) AS oks, jsonb_agg(r.x -> 'error' ORDER BY r.o) AS errors
                  FROM unnest(b.results) WITH ORDINALITY r(x, o)) s
