-- Retention runs on one node at a time: a session advisory lock per worker, held for one run on
-- the connection that runs its batches.

-- name: TryLock
SELECT pg_try_advisory_lock(hashtext('conclave.retention.' || :worker::text)) AS locked;

-- name: Unlock
SELECT pg_advisory_unlock(hashtext('conclave.retention.' || :worker::text)) AS unlocked;
