-- Swarm coordinator (Jetpack agent protocol): tables.
-- Every time-based rule works on a "now" the caller passes in, so no column defaults to now().

CREATE TABLE swarm.agents (
  id                  text PRIMARY KEY,
  name                text NOT NULL,
  type                text NOT NULL CHECK (type IN ('claude-code', 'codex', 'gemini', 'browser', 'custom')),
  skills              text[] NOT NULL DEFAULT '{}',
  max_task_minutes    integer NOT NULL,
  can_run_tests       boolean NOT NULL,
  can_run_build       boolean NOT NULL,
  can_access_browser  boolean NOT NULL,
  machine             jsonb,
  status              text NOT NULL CHECK (status IN ('idle', 'busy', 'error', 'offline')),
  -- the auth principal that registered the agent; NULL when registered through a trusted transport
  owner_principal     uuid,
  -- input to the HMAC secret derivation (the secret itself is never stored)
  secret_salt         text,
  current_task        text,
  metrics             jsonb,
  heartbeat_count     bigint NOT NULL DEFAULT 0,
  tasks_completed     integer NOT NULL DEFAULT 0,
  tasks_failed        integer NOT NULL DEFAULT 0,
  first_registered_at timestamptz NOT NULL,
  registered_at       timestamptz NOT NULL,
  last_heartbeat      timestamptz NOT NULL,
  offline_at          timestamptz
);
CREATE INDEX agents_live ON swarm.agents (last_heartbeat) WHERE status <> 'offline';

CREATE TABLE swarm.tasks (
  id                text PRIMARY KEY,
  seq               bigint GENERATED ALWAYS AS IDENTITY UNIQUE,
  title             text NOT NULL,
  description       text NOT NULL DEFAULT '',
  status            text NOT NULL CHECK (status IN ('blocked', 'ready', 'claimed', 'in_progress', 'needs_review',
                                                    'completed', 'pending_retry', 'failed', 'cancelled')),
  priority          text NOT NULL CHECK (priority IN ('critical', 'high', 'medium', 'low')),
  priority_rank     smallint GENERATED ALWAYS AS (CASE priority WHEN 'critical' THEN 0 WHEN 'high' THEN 1
                                                                WHEN 'medium' THEN 2 ELSE 3 END) STORED,
  type              text NOT NULL CHECK (type IN ('code', 'test', 'browser_test', 'documentation', 'review', 'custom')),
  required_skills   text[] NOT NULL DEFAULT '{}',
  dependencies      text[] NOT NULL DEFAULT '{}',
  -- dependencies not completed yet; the task is 'blocked' while this is above zero
  unmet_deps        integer NOT NULL DEFAULT 0 CHECK (unmet_deps >= 0),
  files             text[] NOT NULL DEFAULT '{}',
  estimated_minutes integer,
  branch            text,
  max_retries       integer NOT NULL CHECK (max_retries >= 0),
  retry_count       integer NOT NULL DEFAULT 0,
  previous_agents   text[] NOT NULL DEFAULT '{}',
  last_error        text,
  failure_type      text,
  -- the last FAIL (or crash) and the answer it got, replayed when the same agent repeats it
  last_failure      jsonb,
  next_retry_at     timestamptz,
  assigned_agent    text,
  claimed_at        timestamptz,
  started_at        timestamptz,
  progress          jsonb,
  completed_by      text,
  completed_at      timestamptz,
  result            jsonb,
  -- the answer of the last COMPLETE: qualityGatePassed, regressions, nextAction
  quality           jsonb,
  cancel_reason     text,
  -- any word of the title and description, to find related learnings (computed once, at creation)
  words             tsquery,
  created_at        timestamptz NOT NULL,
  updated_at        timestamptz NOT NULL
);
-- the claim order; only ready tasks are in it
CREATE INDEX tasks_claimable ON swarm.tasks (priority_rank, created_at, seq) WHERE status = 'ready';
CREATE INDEX tasks_by_status ON swarm.tasks (status, seq);
CREATE INDEX tasks_by_agent ON swarm.tasks (assigned_agent) WHERE assigned_agent IS NOT NULL;
CREATE INDEX tasks_blocked_on ON swarm.tasks USING gin (dependencies) WHERE status = 'blocked';
CREATE INDEX tasks_retry_due ON swarm.tasks (next_retry_at) WHERE status = 'pending_retry';
-- every task is updated several times in its life: vacuum and analyze it sooner than the defaults
ALTER TABLE swarm.tasks SET (autovacuum_vacuum_scale_factor = 0.05, autovacuum_analyze_scale_factor = 0.05);

CREATE TABLE swarm.agent_commands (
  id         bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  agent_id   text NOT NULL,
  command    jsonb NOT NULL,
  created_at timestamptz NOT NULL
);
CREATE INDEX agent_commands_by_agent ON swarm.agent_commands (agent_id, id);

CREATE TABLE swarm.leases (
  file_path     text PRIMARY KEY,
  agent_id      text NOT NULL,
  task_id       text NOT NULL,
  acquired_at   timestamptz NOT NULL,
  expires_at    timestamptz NOT NULL,
  renewed_count integer NOT NULL DEFAULT 0
);
CREATE INDEX leases_by_task ON swarm.leases (task_id);
CREATE INDEX leases_by_agent ON swarm.leases (agent_id);
CREATE INDEX leases_by_expiry ON swarm.leases (expires_at);

CREATE TABLE swarm.messages (
  id           uuid PRIMARY KEY,
  seq          bigint GENERATED ALWAYS AS IDENTITY UNIQUE,
  from_agent   text NOT NULL,
  to_agent     text,
  type         text NOT NULL CHECK (type IN ('task.help_needed', 'task.handoff', 'file.lock_request',
                                             'coordination.sync', 'info.discovery', 'custom')),
  payload      jsonb,
  ack_required boolean NOT NULL DEFAULT false,
  created_at   timestamptz NOT NULL,
  expires_at   timestamptz
);
CREATE INDEX messages_direct ON swarm.messages (to_agent, created_at, seq) WHERE to_agent IS NOT NULL;
CREATE INDEX messages_broadcast ON swarm.messages (created_at, seq) WHERE to_agent IS NULL;
CREATE INDEX messages_by_expiry ON swarm.messages (expires_at) WHERE expires_at IS NOT NULL;
CREATE INDEX messages_by_age ON swarm.messages (created_at);

-- one row per (message, recipient) once delivered; broadcasts get one per receiving agent
CREATE TABLE swarm.message_receipts (
  message_id   uuid NOT NULL REFERENCES swarm.messages (id) ON DELETE CASCADE,
  agent_id     text NOT NULL,
  delivered_at timestamptz NOT NULL,
  deliveries   integer NOT NULL DEFAULT 1,
  acked_at     timestamptz,
  PRIMARY KEY (message_id, agent_id)
);

-- one row per branch ('' when a task names none); metric columns are NULL until the first snapshot
CREATE TABLE swarm.quality_baselines (
  branch        text PRIMARY KEY,
  tests_ran     integer,
  tests_passed  integer,
  lint_errors   integer,
  type_errors   integer,
  build_success boolean,
  task_id       text,
  agent_id      text,
  updated_at    timestamptz
);

CREATE TABLE swarm.quality_snapshots (
  id            bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  task_id       text NOT NULL,
  agent_id      text NOT NULL,
  branch        text NOT NULL,
  tests_ran     integer NOT NULL,
  tests_passed  integer NOT NULL,
  lint_errors   integer NOT NULL,
  type_errors   integer NOT NULL,
  build_success boolean NOT NULL,
  regressions   jsonb NOT NULL,
  gate_passed   boolean NOT NULL,
  recorded_at   timestamptz NOT NULL
);
CREATE INDEX quality_snapshots_by_task ON swarm.quality_snapshots (task_id);

CREATE TABLE swarm.learnings (
  id         bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  task_id    text NOT NULL,
  agent_id   text NOT NULL,
  content    text NOT NULL,
  search     tsvector GENERATED ALWAYS AS (to_tsvector('english', content)) STORED,
  created_at timestamptz NOT NULL,
  UNIQUE (task_id, agent_id, content)
);
CREATE INDEX learnings_search ON swarm.learnings USING gin (search);

-- outbox of state changes; coordinator nodes move them to the event bus (and delete them) in seq order
-- numbers every event, whether it goes through the outbox or straight back to the coordinator that made it
CREATE SEQUENCE swarm.event_seq;
CREATE TABLE swarm.events (
  seq       bigint PRIMARY KEY DEFAULT nextval('swarm.event_seq'),
  kind      text NOT NULL CHECK (kind IN ('task', 'agent', 'lease', 'message')),
  event     text NOT NULL,
  entity_id text NOT NULL,
  at        timestamptz NOT NULL,
  data      jsonb NOT NULL
);

-- fixed one-minute rate-limit windows; losing them in a crash only forgives a minute of traffic
CREATE UNLOGGED TABLE swarm.rate_windows (
  bucket       text NOT NULL,
  window_start timestamptz NOT NULL,
  hits         integer NOT NULL,
  PRIMARY KEY (bucket, window_start)
);

-- HMAC signatures seen inside the replay window
CREATE TABLE swarm.seen_signatures (
  agent_id   text NOT NULL,
  signature  text NOT NULL,
  expires_at timestamptz NOT NULL,
  PRIMARY KEY (agent_id, signature)
);
CREATE INDEX seen_signatures_by_expiry ON swarm.seen_signatures (expires_at);
