-- Who may act on an agent and read a conversation: the one rule of AgentAccess, asked for many
-- (principal, agent, conversation) at once, so that a node re-checks all its open followers in one
-- statement. The agent part is the function auth.may_act_on (db/auth/R__access.sql), which a
-- statement that writes on an agent's behalf calls too.

-- name: Check
-- For each question (its ordinal :ord in the arrays), whether the principal may act on the agent
-- (when one is named) and read the conversation (when one is named): it is the agent's own
-- principal, the owner of that principal, or was granted access to it. A conversation is read
-- through every agent it belongs to: the one it was created for and the one its key is bound to now
-- (a binding moved to another agent brings that agent's events into it); a key that is neither
-- created nor bound names an agent itself. Unknown agents allow no one. With each answer, the
-- principal's roles: admins may read everything, and a follower keeps only the roles its principal
-- still holds. Admins are the caller's to check; this statement answers for the rule alone.
WITH q AS (
  SELECT * FROM unnest(:principals::uuid[], :agents::text[], :conversations::text[])
    WITH ORDINALITY AS q(principal, agent, conversation, ord)
),
bound AS (
  SELECT q.ord, b.agent_id FROM q JOIN gateway.bindings b
    ON strpos(q.conversation, ':') > 1
   AND b.frontend = left(q.conversation, strpos(q.conversation, ':') - 1)
   AND b.channel_id = substr(q.conversation, strpos(q.conversation, ':') + 1)
),
created AS (
  SELECT q.ord, c.agent_id FROM q JOIN gateway.conversations c ON c.conversation_key = q.conversation
),
needed AS (
  SELECT ord, agent FROM q WHERE agent IS NOT NULL
  UNION ALL SELECT ord, agent_id FROM bound
  UNION ALL SELECT ord, agent_id FROM created
  UNION ALL SELECT q.ord, q.conversation FROM q
    WHERE q.conversation IS NOT NULL
      AND NOT EXISTS (SELECT 1 FROM bound WHERE bound.ord = q.ord)
      AND NOT EXISTS (SELECT 1 FROM created WHERE created.ord = q.ord)
),
verdicts AS (
  SELECT n.ord, bool_and(auth.may_act_on(n.agent, q.principal)) AS allowed
  FROM needed n
  JOIN q ON q.ord = n.ord
  GROUP BY n.ord
)
SELECT q.ord, COALESCE(p.roles, '{}') AS roles, COALESCE(v.allowed, true) AS allowed
FROM q
LEFT JOIN auth.principals p ON p.id = q.principal
LEFT JOIN verdicts v ON v.ord = q.ord
ORDER BY q.ord;

-- name: AgentPrincipalsOf
-- the agent principals a principal may act on: those it owns (not deleted) and those it was granted
SELECT id FROM auth.principals WHERE owner_id = :principal AND deleted_at IS NULL
UNION SELECT agent_principal_id FROM auth.agent_grants WHERE grantee_id = :principal;
