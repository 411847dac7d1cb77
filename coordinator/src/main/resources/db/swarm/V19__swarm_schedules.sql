-- Schedules (periodic tasks): each row makes a task from its template at the slots of its rule (a
-- 5-field cron expression read in timezone, or a fixed period every), fired by whichever coordinator
-- node locks the row first (dev/conclave/swarm/store/schedules.sql, Due and Fire). next_run_at is the
-- slot to fire next; state lives only here, so firing survives restarts and failover.
CREATE TABLE swarm.schedules (
  name          text PRIMARY KEY,
  cron          text,
  every         text,
  timezone      text NOT NULL,
  task          jsonb NOT NULL,
  next_run_at   timestamptz NOT NULL,
  last_run_at   timestamptz,
  last_task_id  text,
  last_error    text,
  runs          bigint NOT NULL DEFAULT 0,
  missed_runs   bigint NOT NULL DEFAULT 0,
  created_at    timestamptz NOT NULL,
  CONSTRAINT schedules_one_rule CHECK ((cron IS NULL) <> (every IS NULL))
);
CREATE INDEX schedules_by_next_run ON swarm.schedules (next_run_at);

-- A schedule as the API answers it (here, not in a repeatable file: that also runs on databases from
-- before this table). Times as swarm._iso writes them, which a versioned file cannot call: it is
-- created after every versioned file on a new database.
CREATE FUNCTION swarm.schedule_json(s swarm.schedules) RETURNS jsonb LANGUAGE sql STABLE AS $$
  SELECT jsonb_build_object('name', s.name, 'timezone', s.timezone, 'task', s.task,
                            'nextRunAt', to_char(s.next_run_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'), 'runs', s.runs, 'missedRuns', s.missed_runs,
                            'createdAt', to_char(s.created_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'))
      || jsonb_strip_nulls(jsonb_build_object('cron', s.cron, 'every', s.every, 'lastRunAt', to_char(s.last_run_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'),
                                              'lastTaskId', s.last_task_id, 'lastError', s.last_error))
$$;
