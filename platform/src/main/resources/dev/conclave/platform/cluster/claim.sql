-- The database claim (DatabaseClaim): a session advisory lock on one key, exclusive for a
-- standalone node and shared for a cluster's, and who else holds it when it cannot be taken.

-- name: TryExclusive
SELECT pg_try_advisory_lock(:key) AS taken;

-- name: TryShared
SELECT pg_try_advisory_lock_shared(:key) AS taken;

-- name: Holders
-- who else holds the lock in this database: a bigint key shows in pg_locks as its high 32 bits
-- (classid) and low 32 bits (objid), with objsubid 1; the oldest connection first
SELECT a.application_name, coalesce(host(a.client_addr), 'the local socket') AS client,
       to_char(a.backend_start AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS"Z"') AS since, l.mode
FROM pg_locks l JOIN pg_stat_activity a ON a.pid = l.pid
WHERE l.locktype = 'advisory' AND l.granted AND l.pid <> pg_backend_pid()
  AND l.database = (SELECT oid FROM pg_database WHERE datname = current_database())
  AND l.classid::bigint = :key_high AND l.objid::bigint = :key_low AND l.objsubid = 1
ORDER BY a.backend_start;
