-- The agent registry (seed 004): each agent's lifecycle state, its classification
-- (PrimaryType.Domain.Capability.Role.Lifecycle.Security) and optional parent. The allowed
-- transitions are checked in Java (lifecycle/LifecycleState), in the same transaction that locks
-- the row; the CHECK only keeps the column to the nine states.
ALTER TABLE agents
  ADD COLUMN lifecycle        text        NOT NULL DEFAULT 'initialized'
    CHECK (lifecycle IN ('defined', 'provisioning', 'initialized', 'running', 'paused', 'maintaining', 'evolving', 'retiring', 'retired')),
  ADD COLUMN lifecycle_since  timestamptz NOT NULL DEFAULT now(),
  ADD COLUMN classification   text,
  ADD COLUMN primary_type     text,
  ADD COLUMN domain           text,
  ADD COLUMN capability       text,
  ADD COLUMN role             text,
  ADD COLUMN lifecycle_class  text,
  ADD COLUMN security         text,
  ADD COLUMN parent_id        text;

-- agents that registered before the registry existed have been connected: they are running
UPDATE agents SET lifecycle = 'running';

CREATE INDEX agents_parent ON agents (parent_id) WHERE parent_id IS NOT NULL;
CREATE INDEX agents_lifecycle ON agents (lifecycle);
