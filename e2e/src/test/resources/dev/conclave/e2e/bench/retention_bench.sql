-- RetentionBench: a ledger seeded past the retention window, the gateway retention worker held off
-- or let run, and what the tables weigh on disk.

-- name: TryLock
-- the gateway retention worker's own advisory lock (platform retention.sql): while the benchmark
-- holds it, the node's runs skip
SELECT pg_try_advisory_lock(hashtext('conclave.retention.gateway')) AS locked;

-- name: Unlock
SELECT pg_advisory_unlock(hashtext('conclave.retention.gateway')) AS unlocked;

-- name: CancelRetention
-- stops the retention batch running now (the worker logs stopped=…, ends its run and unlocks)
SELECT count(pg_cancel_backend(pid)) AS cancelled FROM pg_stat_activity
WHERE datname = current_database() AND pid <> pg_backend_pid() AND state = 'active'
  AND (query LIKE '%DELETE FROM gateway.events e USING doomed%' OR query LIKE '%DELETE FROM gateway.requests r USING doomed%');

-- name: Activity
-- backends of the node's database waiting for a lock, and busy, at this instant
SELECT count(*) FILTER (WHERE wait_event_type = 'Lock') AS lock_waits, count(*) FILTER (WHERE state = 'active') AS active
FROM pg_stat_activity WHERE datname = current_database() AND pid <> pg_backend_pid() AND backend_type = 'client backend';

-- name: Sizes
SELECT schemaname || '.' || relname AS rel, pg_total_relation_size(relid) AS bytes, n_live_tup AS live
FROM pg_stat_user_tables ORDER BY 1;

-- name: Counts
SELECT (SELECT count(*) FROM gateway.requests) AS requests, (SELECT count(*) FROM gateway.events) AS events;

-- name: TemplateRequest
-- a real request the workload finished, copied into the seed
CREATE TEMP TABLE seed_request AS
SELECT r.* FROM gateway.requests r
WHERE r.state = 'done' AND r.conversation_key LIKE 'bench-%' AND EXISTS (SELECT 1 FROM gateway.events e WHERE e.request_id = r.id)
ORDER BY r.finished_at DESC LIMIT 1;

-- name: TemplateEvents
-- that request's ledger events (the client's message, the agent's chunks, done), in order
CREATE TEMP TABLE seed_events AS
SELECT row_number() OVER (ORDER BY e.seq) AS ord, e.* FROM gateway.events e JOIN seed_request r ON e.request_id = r.id;

-- name: Template
SELECT count(*) AS k, coalesce(string_agg(e.kind, ',' ORDER BY e.ord), '') AS kinds, coalesce(sum(pg_column_size(e.*)), 0) AS bytes
FROM seed_events e;

-- name: SeedConversations
INSERT INTO gateway.conversations (conversation_key, agent_id, last_seq, created_at)
SELECT 'seed-' || c, 'bench-' || (c % :agents::int), :requests::bigint * :k::bigint, now() - interval '400 days'
FROM generate_series(:first::int, :last::int) c;

-- name: SeedRequests
-- :requests finished requests per conversation, one a second from 400 days ago
INSERT INTO gateway.requests (id, agent_id, conversation_key, principal_id, sender, idempotency_key, content, attachments, state,
  created_at, dispatched_at, dispatch_epoch, dispatch_node, finished_at, approve_all, agent_events, trace_context)
SELECT md5('seed-' || c || '-' || r)::uuid, 'bench-' || (c % :agents::int), 'seed-' || c, t.principal_id, t.sender, 'seed-' || c || '-' || r,
  t.content, t.attachments, t.state, at, at, t.dispatch_epoch, t.dispatch_node, at + (t.finished_at - t.created_at), t.approve_all,
  t.agent_events, t.trace_context
FROM seed_request t, generate_series(:first::int, :last::int) c, generate_series(1, :requests::int) r,
  LATERAL (SELECT now() - interval '400 days' + (c::bigint * :requests::int + r) * interval '1 second' AS at) x;

-- name: SeedEvents
-- the template's events for each seeded request, same kinds, texts and payloads, seqs in order
INSERT INTO gateway.events (conversation_key, seq, request_id, kind, author, text, payload, raw, actor_principal_id, created_at)
SELECT 'seed-' || c, (r - 1)::bigint * :k::int + e.ord, md5('seed-' || c || '-' || r)::uuid, e.kind, e.author, e.text, e.payload, e.raw,
  e.actor_principal_id, now() - interval '400 days' + (c::bigint * :requests::int + r) * interval '1 second' + (e.created_at - t.created_at)
FROM seed_request t, seed_events e, generate_series(:first::int, :last::int) c, generate_series(1, :requests::int) r;
