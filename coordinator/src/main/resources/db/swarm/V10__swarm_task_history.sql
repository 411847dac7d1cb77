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

CREATE FUNCTION swarm.record_task_history() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO swarm.task_history (task_id, seq, kind, event, at, data)
  SELECT CASE WHEN i.kind = 'task' THEN i.entity_id ELSE i.data ->> 'taskId' END, i.seq, i.kind, i.event, i.at, i.data
  FROM inserted i
  WHERE i.kind = 'task' OR (i.kind IN ('lease', 'message') AND i.data ->> 'taskId' IS NOT NULL);
  RETURN NULL;
END
$$;

CREATE TRIGGER events_task_history AFTER INSERT ON swarm.events
  REFERENCING NEW TABLE AS inserted FOR EACH STATEMENT EXECUTE FUNCTION swarm.record_task_history();

CREATE OR REPLACE FUNCTION swarm._emit(p_kind text, p_event text, p_id text, p_at timestamptz, p_data jsonb)
RETURNS void LANGUAGE plpgsql AS $$
DECLARE
  v_data jsonb := coalesce(jsonb_strip_nulls(p_data), '{}'::jsonb);
  v_seq bigint;
  v_task text;
BEGIN
  IF current_setting('swarm.capture', true) = 'on' THEN
    v_seq := nextval('swarm.event_seq');
    PERFORM set_config('swarm.captured', current_setting('swarm.captured') || jsonb_build_object(
      'seq', v_seq, 'kind', p_kind, 'event', p_event, 'id', p_id,
      'at', swarm._iso(p_at), 'data', v_data)::text || E'\n', true);
    v_task := CASE WHEN p_kind = 'task' THEN p_id WHEN p_kind IN ('lease', 'message') THEN v_data ->> 'taskId' END;
    IF v_task IS NOT NULL THEN
      INSERT INTO swarm.task_history (task_id, seq, kind, event, at, data) VALUES (v_task, v_seq, p_kind, p_event, p_at, v_data);
    END IF;
  ELSE
    INSERT INTO swarm.events (kind, event, entity_id, at, data) VALUES (p_kind, p_event, p_id, p_at, v_data);
  END IF;
END $$;
