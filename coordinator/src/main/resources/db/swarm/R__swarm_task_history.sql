-- Repeatable migration (Flyway R__): the swarm functions for the task history (the table is in V10). Flyway runs this file again
-- whenever it changes, after the versioned migrations (tables, indexes) in this directory; edit the
-- function here instead of adding a versioned migration. CREATE OR REPLACE keeps a function's
-- signature: to change its arguments or return type, DROP it first in this file.
-- Function bodies are checked when called, not here, so the files may run in any order.
SET LOCAL check_function_bodies = off;

CREATE OR REPLACE FUNCTION swarm.record_task_history() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO swarm.task_history (task_id, seq, kind, event, at, data)
  SELECT CASE WHEN i.kind = 'task' THEN i.entity_id ELSE i.data ->> 'taskId' END, i.seq, i.kind, i.event, i.at,
         -- a lease's entry names its file (the event's id), which its data does not
         CASE WHEN i.kind = 'lease' THEN i.data || jsonb_build_object('filePath', i.entity_id) ELSE i.data END
  FROM inserted i
  WHERE i.kind = 'task' OR (i.kind IN ('lease', 'message') AND i.data ->> 'taskId' IS NOT NULL);
  RETURN NULL;
END
$$;

CREATE OR REPLACE TRIGGER events_task_history AFTER INSERT ON swarm.events
  REFERENCING NEW TABLE AS inserted FOR EACH STATEMENT EXECUTE FUNCTION swarm.record_task_history();
