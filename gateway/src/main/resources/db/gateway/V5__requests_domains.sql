-- The two rules of gateway.requests as domain types instead of CHECK constraints.
--
-- Why: PostgreSQL reads a table's CHECK constraints from their stored text and plans them again for
-- every statement that writes a row of it (`ExecRelCheck` keeps them only for the statement), and
-- three statements per round trip write a request: queue it, dispatch it, end it. A domain's rule
-- is cached per session and checked only when a statement assigns its column. The rules do not
-- change: the same five states, the same bounds, checked on every write (docs/gateway.md).
-- The swarm's busiest tables made the same move in swarm V13.

CREATE DOMAIN gateway.request_state AS text CHECK (VALUE IN ('queued', 'dispatched', 'done', 'error', 'cancelled'));
CREATE DOMAIN gateway.idempotency_key AS text CHECK (length(VALUE) BETWEEN 1 AND 100);

ALTER TABLE gateway.requests
  DROP CONSTRAINT requests_state_check,
  DROP CONSTRAINT requests_idempotency_key_check,
  ALTER COLUMN state TYPE gateway.request_state,
  ALTER COLUMN idempotency_key TYPE gateway.idempotency_key;
