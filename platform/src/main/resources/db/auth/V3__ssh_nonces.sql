-- Nonces of SSH-signed agent calls (x-ssh-* headers) that were accepted once. The primary key is
-- what makes "each nonce once per key, cluster-wide" atomic: a node records a nonce with
-- INSERT … ON CONFLICT DO NOTHING and accepts the call only when it inserted the row.
-- A row is written only after the signature verified. signed_at is the agent's x-ssh-timestamp;
-- rows are deleted once that timestamp is far outside the validity window (see NonceStore).

CREATE TABLE ssh_nonces (
  fingerprint  text        NOT NULL,
  nonce        text        NOT NULL,
  signed_at    timestamptz NOT NULL,
  PRIMARY KEY (fingerprint, nonce)
);

CREATE INDEX ssh_nonces_signed_at ON ssh_nonces (signed_at);
