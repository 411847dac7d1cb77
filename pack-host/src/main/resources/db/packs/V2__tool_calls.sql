-- Every pack tool call a pack-host node ran, with who asked, which tool, how long it took and how
-- it ended. Written once, when the call ends.
CREATE TABLE tool_calls (
  id                 uuid        PRIMARY KEY,
  client_request_id  text        NOT NULL DEFAULT '',
  agent_id           text        NOT NULL,
  principal_id       uuid        NOT NULL,
  tool_name          text        NOT NULL,
  pack_id            text        NOT NULL DEFAULT '',
  origin             text        NOT NULL,
  node               text        NOT NULL,
  outcome            text        NOT NULL,
  error              text,
  started_at         timestamptz NOT NULL,
  duration_ms        bigint      NOT NULL
);
CREATE INDEX tool_calls_agent ON tool_calls (agent_id, started_at);
CREATE INDEX tool_calls_tool ON tool_calls (tool_name, started_at);
