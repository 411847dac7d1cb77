-- A signature is remembered (against replay) only once it was verified: the coordinator reads the
-- agent's secret salt first, checks the HMAC, and only then records the signature here. Before, the
-- check recorded every signature of a known agent, so forged requests could fill swarm.seen_signatures.
-- The agent's current salt comes back with the answer, so a node that verified against a salt it had
-- cached learns in the same round trip that the secret was rotated since.
DROP FUNCTION swarm.signature_check(text, text, timestamptz);

CREATE FUNCTION swarm.signature_record(p_agent_id text, p_signature text, p_expires_at timestamptz)
RETURNS TABLE (fresh boolean, owner_active boolean, secret_salt text) LANGUAGE sql AS $$
  WITH seen AS (
    INSERT INTO swarm.seen_signatures (agent_id, signature, expires_at)
    SELECT p_agent_id, p_signature, p_expires_at WHERE EXISTS (SELECT 1 FROM swarm.agents WHERE id = p_agent_id)
    ON CONFLICT DO NOTHING RETURNING 1)
  SELECT EXISTS (SELECT 1 FROM seen), coalesce(p.status = 'approved' AND p.deleted_at IS NULL, false), a.secret_salt
    FROM swarm.agents a LEFT JOIN auth.principals p ON p.id = a.owner_principal
   WHERE a.id = p_agent_id
$$;
