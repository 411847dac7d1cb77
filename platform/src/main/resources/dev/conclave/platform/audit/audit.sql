-- The audit log (auth.audit): written in batches by AuditLog, read by AuditQuery.

-- name: InsertBatch
-- one row per element of the arrays, all of the same length
INSERT INTO auth.audit (actor_id, actor_type, action, target, outcome, detail, remote, node, count)
SELECT a, t, ac, tg, o, d, r, :node, c
FROM unnest(:actors::uuid[], :types::text[], :actions::text[], :targets::text[], :outcomes::text[], :details::text[], :remotes::text[],
            :counts::int[]) AS x(a, t, ac, tg, o, d, r, c);

-- name: DeleteOlder
DELETE FROM auth.audit WHERE at < now() - :retention::interval;

-- name: Page
-- newest first; every filter is optional (null), :before is a cursor (entries with a smaller id)
SELECT id, at, actor_id, actor_type, action, target, outcome, detail, remote, node, count FROM auth.audit
WHERE (:actor::uuid IS NULL OR actor_id = :actor) AND (:action_prefix::text IS NULL OR action LIKE :action_prefix || '%')
  AND (:target::text IS NULL OR strpos(target, :target) > 0) AND (:outcome::text IS NULL OR outcome = :outcome)
  AND (:since::timestamptz IS NULL OR at >= :since) AND (:until::timestamptz IS NULL OR at <= :until)
  AND (:before::bigint IS NULL OR id < :before)
ORDER BY id DESC LIMIT :limit;
