-- A task's history for operators and dashboards: every task event, and the lease and message events
-- that name the task, kept after the events are published. It is written in the transaction that
-- makes the change, so a history row exists exactly when its event was committed: by a
-- statement-level trigger for events that go through the outbox (background jobs, direct database
-- callers), and by swarm._emit for events a coordinator captures and publishes itself.
CREATE TABLE swarm.task_history (
  task_id text        NOT NULL,
  seq     bigint      NOT NULL,
  kind    text        NOT NULL,
  event   text        NOT NULL,
  at      timestamptz NOT NULL,
  data    jsonb       NOT NULL,
  PRIMARY KEY (task_id, seq)
);
-- (its trigger and functions: R__swarm_task_history.sql)
