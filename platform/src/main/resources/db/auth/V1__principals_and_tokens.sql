-- Identities that can authenticate, and the tokens issued to them.
-- Principals are never hard-deleted: a deleted principal is 'revoked' with deleted_at set, so its
-- tokens stay known as revoked.

CREATE TABLE principals (
  id            uuid        PRIMARY KEY,
  type          text        NOT NULL CHECK (type IN ('client', 'agent', 'pack')),
  display_name  text        NOT NULL CHECK (length(display_name) BETWEEN 1 AND 200),
  status        text        NOT NULL CHECK (status IN ('pending', 'approved', 'revoked')),
  roles         text[]      NOT NULL DEFAULT '{}',
  pubkey_fp     text,
  created_at    timestamptz NOT NULL DEFAULT now(),
  updated_at    timestamptz NOT NULL DEFAULT now(),
  deleted_at    timestamptz
);

CREATE UNIQUE INDEX principals_pubkey_fp ON principals (type, pubkey_fp) WHERE pubkey_fp IS NOT NULL AND deleted_at IS NULL;
CREATE INDEX principals_type_status ON principals (type, status);

CREATE TABLE tokens (
  id              uuid        PRIMARY KEY,
  principal_id    uuid        NOT NULL REFERENCES principals (id),
  purpose         text        NOT NULL DEFAULT 'api',
  issued_at       timestamptz NOT NULL DEFAULT now(),
  expires_at      timestamptz NOT NULL,
  revoked_at      timestamptz,
  revoked_reason  text,
  CHECK (expires_at > issued_at)
);

CREATE INDEX tokens_principal ON tokens (principal_id);
CREATE INDEX tokens_revoked ON tokens (revoked_at) WHERE revoked_at IS NOT NULL;
