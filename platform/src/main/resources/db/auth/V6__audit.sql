-- The audit log: who did what to which target, when, from where, and how it ended. Rows are only
-- ever inserted, and deleted when older than the retention (CONCLAVE_AUDIT_RETENTION_DAYS).
CREATE TABLE audit (
  id            bigserial   PRIMARY KEY,
  at            timestamptz NOT NULL DEFAULT now(),
  actor_id      uuid,
  actor_type    text        NOT NULL DEFAULT '',
  action        text        NOT NULL,
  target        text        NOT NULL DEFAULT '',
  outcome       text        NOT NULL CHECK (outcome IN ('ok', 'denied', 'failed')),
  detail        text,
  remote        text        NOT NULL DEFAULT '',
  node          text        NOT NULL DEFAULT ''
);
CREATE INDEX audit_at ON audit (at);
CREATE INDEX audit_actor ON audit (actor_id, id);
CREATE INDEX audit_action ON audit (action, id);
