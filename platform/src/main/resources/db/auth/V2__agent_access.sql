-- Who may act on which agent. An agent principal has an owner (the member who created or
-- registered it); members act on agents they own or were granted; admins and owners on all.
ALTER TABLE principals ADD COLUMN owner_id uuid REFERENCES principals (id);
CREATE INDEX principals_owner ON principals (owner_id) WHERE owner_id IS NOT NULL;

CREATE TABLE agent_grants (
  agent_principal_id  uuid        NOT NULL REFERENCES principals (id),
  grantee_id          uuid        NOT NULL REFERENCES principals (id),
  granted_by          uuid        NOT NULL,
  granted_at          timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (agent_principal_id, grantee_id)
);
CREATE INDEX agent_grants_grantee ON agent_grants (grantee_id);
