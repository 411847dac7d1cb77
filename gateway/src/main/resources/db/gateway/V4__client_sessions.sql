-- Session protocol sessions (seed 004, /api/v1/sessions): what a UI's session is following and the
-- task it started last, so a reconnect to any node resumes it. The task's request and its events are
-- in requests and events; the request's idempotency key is 'ui:<session_id>:<sub_id>'.
CREATE TABLE client_sessions (
  session_id        uuid        PRIMARY KEY,
  principal_id      uuid        NOT NULL,
  agent_id          text        NOT NULL,
  conversation_key  text        NOT NULL,
  task_request_id   uuid,
  task_sub_id       text,
  created_at        timestamptz NOT NULL DEFAULT now(),
  updated_at        timestamptz NOT NULL DEFAULT now()
);
