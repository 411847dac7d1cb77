-- Gateway schema: known agents, bindings, the per-agent mailbox of requests, the conversation
-- ledger, and what agents reported (approvals, injections, usage, tool states).

-- Every agent that ever registered. Live presence (which node holds the stream) is in the cluster
-- map; this is what survives. epoch increases on every registration: the newest session wins.
CREATE TABLE agents (
  agent_id      text        PRIMARY KEY CHECK (length(agent_id) BETWEEN 1 AND 200),
  principal_id  uuid        NOT NULL,
  name          text        NOT NULL DEFAULT '',
  capabilities  text[]      NOT NULL DEFAULT '{}',
  features      text[]      NOT NULL DEFAULT '{}',
  workspaces    text[]      NOT NULL DEFAULT '{}',
  backend       text        NOT NULL DEFAULT '',
  working_dir   text        NOT NULL DEFAULT '',
  metadata      bytea,
  instance_id   text        NOT NULL UNIQUE,
  epoch         bigint      NOT NULL DEFAULT 1,
  first_seen    timestamptz NOT NULL DEFAULT now(),
  last_seen     timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX agents_workspaces ON agents USING gin (workspaces);

-- A frontend channel routed to an agent; conversation key '<frontend>:<channel_id>'.
CREATE TABLE bindings (
  id          uuid        PRIMARY KEY,
  frontend    text        NOT NULL CHECK (length(frontend) BETWEEN 1 AND 100),
  channel_id  text        NOT NULL CHECK (length(channel_id) BETWEEN 1 AND 300),
  agent_id    text        NOT NULL CHECK (length(agent_id) BETWEEN 1 AND 200),
  created_at  timestamptz NOT NULL DEFAULT now(),
  created_by  text,
  UNIQUE (frontend, channel_id)
);

-- One row per conversation; last_seq is the ledger's counter. Appending locks this row, so events
-- of one conversation commit in seq order and seq has no gaps.
CREATE TABLE conversations (
  conversation_key  text        PRIMARY KEY,
  agent_id          text        NOT NULL,
  last_seq          bigint      NOT NULL DEFAULT 0,
  created_at        timestamptz NOT NULL DEFAULT now()
);

-- The mailbox. A request is queued, dispatched to exactly one agent session (epoch), and ends
-- done, error or cancelled exactly once.
CREATE TABLE requests (
  id                   uuid        PRIMARY KEY,
  queue_seq            bigserial   NOT NULL,
  agent_id             text        NOT NULL,
  conversation_key     text        NOT NULL,
  principal_id         uuid        NOT NULL,
  sender               text        NOT NULL,
  idempotency_key      text        NOT NULL CHECK (length(idempotency_key) BETWEEN 1 AND 100),
  content              text        NOT NULL,
  attachments          bytea,
  state                text        NOT NULL CHECK (state IN ('queued', 'dispatched', 'done', 'error', 'cancelled')),
  created_at           timestamptz NOT NULL DEFAULT now(),
  dispatched_at        timestamptz,
  dispatch_epoch       bigint,
  dispatch_node        text,
  finished_at          timestamptz,
  cancel_requested_at  timestamptz,
  cancel_reason        text,
  approve_all          boolean     NOT NULL DEFAULT false,
  -- agent events persisted for this request; lets a retried write tell whether it already committed
  agent_events         bigint      NOT NULL DEFAULT 0,
  UNIQUE (principal_id, idempotency_key)
);
-- exactly one request in flight per agent, whatever any node believes
CREATE UNIQUE INDEX requests_one_in_flight ON requests (agent_id) WHERE state = 'dispatched';
CREATE INDEX requests_queue ON requests (agent_id, queue_seq) WHERE state = 'queued';
CREATE INDEX requests_dispatch_node ON requests (dispatch_node) WHERE state = 'dispatched';

-- The conversation ledger: every event, text chunks included. payload is the ClientStreamEvent
-- (protobuf) clients see; kind is what happened; raw keeps the agent's original MessageResponse
-- where the client view drops data (files, session events).
CREATE TABLE events (
  conversation_key    text        NOT NULL,
  seq                 bigint      NOT NULL,
  request_id          uuid,
  kind                text        NOT NULL,
  author              text        NOT NULL,
  text                text,
  payload             bytea       NOT NULL,
  raw                 bytea,
  actor_principal_id  uuid,
  created_at          timestamptz NOT NULL,
  PRIMARY KEY (conversation_key, seq)
);
CREATE INDEX events_created ON events (conversation_key, created_at);
CREATE INDEX events_request ON events (request_id, seq);

CREATE TABLE approvals (
  request_id        uuid        NOT NULL,
  tool_id           text        NOT NULL,
  agent_id          text        NOT NULL,
  conversation_key  text        NOT NULL,
  tool_name         text        NOT NULL,
  input_json        text        NOT NULL,
  ledger_seq        bigint      NOT NULL,
  state             text        NOT NULL CHECK (state IN ('pending', 'approved', 'denied', 'expired')),
  created_at        timestamptz NOT NULL DEFAULT now(),
  decided_at        timestamptz,
  decided_by        uuid,
  PRIMARY KEY (request_id, tool_id)
);
CREATE INDEX approvals_pending ON approvals (conversation_key) WHERE state = 'pending';

CREATE TABLE injections (
  id          uuid        PRIMARY KEY,
  agent_id    text        NOT NULL,
  content     text        NOT NULL,
  priority    text        NOT NULL,
  source      text,
  state       text        NOT NULL CHECK (state IN ('sent', 'accepted', 'rejected', 'undelivered')),
  reason      text,
  created_by  uuid        NOT NULL,
  created_at  timestamptz NOT NULL DEFAULT now(),
  acked_at    timestamptz
);
CREATE INDEX injections_agent ON injections (agent_id, created_at);

CREATE TABLE token_usage (
  id                  bigserial   PRIMARY KEY,
  agent_id            text        NOT NULL,
  conversation_key    text        NOT NULL,
  request_id          uuid        NOT NULL,
  input_tokens        bigint      NOT NULL,
  output_tokens       bigint      NOT NULL,
  cache_read_tokens   bigint      NOT NULL,
  cache_write_tokens  bigint      NOT NULL,
  thinking_tokens     bigint      NOT NULL,
  created_at          timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX token_usage_agent ON token_usage (agent_id);
CREATE INDEX token_usage_conversation ON token_usage (conversation_key);

-- Latest known state of each tool invocation.
CREATE TABLE tool_calls (
  request_id        uuid        NOT NULL,
  tool_id           text        NOT NULL,
  agent_id          text        NOT NULL,
  conversation_key  text        NOT NULL,
  name              text,
  state             text        NOT NULL,
  detail            text,
  updated_at        timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (request_id, tool_id)
);
