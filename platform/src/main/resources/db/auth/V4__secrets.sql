-- Secrets that admins set for agents (global, or for one agent id), delivered in Welcome.secrets.
-- Only ciphertext is stored: AES-256-GCM under CONCLAVE_SECRETS_KEY (or the data dir's secrets.key),
-- a random 96-bit nonce per value, and (scope, agent_id, name) as associated data, so a row's
-- ciphertext cannot be moved to another name. The ciphertext includes GCM's 16-byte tag.

CREATE TABLE secrets (
  scope       text        NOT NULL CHECK (scope IN ('global', 'agent')),
  -- '' for global secrets, so that (scope, agent_id, name) can be the primary key
  agent_id    text        NOT NULL CHECK ((scope = 'global') = (agent_id = '') AND length(agent_id) <= 200),
  name        text        NOT NULL CHECK (name ~ '^[A-Z_][A-Z0-9_]{0,127}$'),
  nonce       bytea       NOT NULL CHECK (length(nonce) = 12),
  ciphertext  bytea       NOT NULL CHECK (length(ciphertext) >= 16),
  updated_at  timestamptz NOT NULL DEFAULT now(),
  updated_by  uuid        NOT NULL,
  PRIMARY KEY (scope, agent_id, name)
);

-- One known value encrypted by the first node that started; every node decrypts it at start, so a
-- node with the wrong key refuses to start instead of failing later, agent by agent.
CREATE TABLE secrets_key_check (
  id          boolean     PRIMARY KEY DEFAULT true CHECK (id),
  nonce       bytea       NOT NULL CHECK (length(nonce) = 12),
  ciphertext  bytea       NOT NULL,
  created_at  timestamptz NOT NULL DEFAULT now()
);
