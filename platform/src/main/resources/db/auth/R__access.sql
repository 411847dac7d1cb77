-- Repeatable migration (Flyway R__): the access rule as a function, for every statement that checks
-- it (access.sql's Check, and a statement that writes on an agent's behalf). Flyway runs this file
-- again whenever it changes, after the versioned migrations; edit the function here. CREATE OR
-- REPLACE keeps a function's signature: to change its arguments or return type, DROP it first here.
-- The body reads gateway.agents, which the gateway's own migrations create (possibly later, or on
-- a node without the gateway role): bodies are checked when called, not here.
SET LOCAL check_function_bodies = off;

-- May principal p_principal act on agent p_agent_id? True when it is the agent's own principal, the
-- owner of that principal, or was granted access to it; false otherwise, unknown agents included.
-- Admins may act on every agent: that is the caller's to check, this answers for the rule alone.
CREATE OR REPLACE FUNCTION auth.may_act_on(p_agent_id text, p_principal uuid) RETURNS boolean
LANGUAGE sql STABLE AS $$
  SELECT COALESCE((
    SELECT a.principal_id = p_principal OR p.owner_id = p_principal
        OR EXISTS (SELECT 1 FROM auth.agent_grants g WHERE g.agent_principal_id = a.principal_id AND g.grantee_id = p_principal)
    FROM gateway.agents a JOIN auth.principals p ON p.id = a.principal_id
    WHERE a.agent_id = p_agent_id), false)
$$;
