-- Capabilities an admin granted to a principal. A few capabilities open tools that act with more than
-- the agent's own reach (today 'admin': the built-in admin tools); an agent gets such a capability
-- only when its principal holds a grant here AND the agent declares it at registration. What an
-- agent declares can narrow its tools, never widen them.
CREATE TABLE principal_capabilities (
  principal_id  uuid        NOT NULL REFERENCES principals (id),
  capability    text        NOT NULL CHECK (capability ~ '^[a-z][a-z0-9_.:-]{0,63}$'),
  -- the admin who granted it; NULL when it was granted with ./conclave token on the database's machine
  granted_by    uuid,
  granted_at    timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (principal_id, capability)
);
