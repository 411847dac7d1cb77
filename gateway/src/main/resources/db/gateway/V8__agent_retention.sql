-- Per-agent retention (issue 47): an agent's conversations may keep their events for another window
-- than CONCLAVE_CONVERSATION_RETENTION_DAYS, and another number of latest events than
-- CONCLAVE_CONVERSATION_KEEP_EVENTS; a NULL column is the node's setting. The agent's finished
-- requests follow its window too (ConversationRetention). One row per agent that overrides anything.
CREATE TABLE agent_retention (
  agent_id           text        PRIMARY KEY REFERENCES agents (agent_id) ON DELETE CASCADE,
  conversation_days  integer     CHECK (conversation_days >= 1),
  keep_events        integer     CHECK (keep_events >= 0),
  updated_at         timestamptz NOT NULL DEFAULT now(),
  updated_by         uuid,
  CHECK (conversation_days IS NOT NULL OR keep_events IS NOT NULL)
);

-- Retention of an agent with an override walks from the agent to its conversations and from the
-- agent to its finished requests, instead of every old row of every agent.
CREATE INDEX conversations_agent ON conversations (agent_id);
CREATE INDEX requests_agent_finished ON requests (agent_id, finished_at) WHERE state IN ('done', 'error', 'cancelled');
