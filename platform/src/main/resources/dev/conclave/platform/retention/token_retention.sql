-- Retention of token records (TokenRetention): expired tokens, and revoked ones once they have also
-- expired. A revoked token that has not expired yet stays, so that its revocation is never forgotten
-- by a node that still holds its record in memory; a live token is never deleted.

-- name: DeleteBatch
WITH doomed AS (
  SELECT id FROM auth.tokens
  WHERE expires_at < now() - :window_s * interval '1 second'
     OR (revoked_at < now() - :window_s * interval '1 second' AND expires_at < now())
  LIMIT :limit
  FOR UPDATE SKIP LOCKED)
DELETE FROM auth.tokens t USING doomed d WHERE t.id = d.id
RETURNING 'tokens' AS kind, to_jsonb(t)::text AS line;
