-- Agents' todo lists (TodoStore, packs.todos). Every statement names the owning agent in its WHERE
-- clause, so that another agent's todo behaves exactly like a missing one.

-- name: Add
-- a pending todo
INSERT INTO packs.todos (id, agent_id, description, status, priority, notes, due_date, created_at, updated_at)
VALUES (:id, :agent_id, :description, 'pending', :priority, :notes, :due_date, :now, :now);

-- name: List
-- the agent's todos, newest first; a null :status or :priority matches any
SELECT id, agent_id, description, status, priority, notes, due_date, created_at, updated_at FROM packs.todos
WHERE agent_id = :agent_id
  AND (:status::text IS NULL OR status = :status::text)
  AND (:priority::text IS NULL OR priority = :priority::text)
ORDER BY created_at DESC, seq DESC LIMIT :limit;

-- name: Update
-- applies the changes; a null field is left as it is
UPDATE packs.todos SET status = coalesce(:status::text, status), priority = coalesce(:priority::text, priority),
  notes = coalesce(:notes::text, notes), due_date = coalesce(:due_date::timestamptz, due_date), updated_at = :now
WHERE id = :id AND agent_id = :agent_id;

-- name: Delete
DELETE FROM packs.todos WHERE id = :id AND agent_id = :agent_id;
