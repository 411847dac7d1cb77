-- The conversation ledger (LedgerStore). An append advances the conversation's counter by :count
-- (creating the conversation, of agent :agent_id, on its first event) and inserts the :count entries,
-- given one array per column (:request_ids ... :ats, in order); each entry's sequence number is the
-- new counter less :count plus its ordinal. Taking the conversation row's lock in that upsert is what
-- orders one conversation's appends: its events get consecutive numbers and commit in that order.
-- Append and AppendForRequest each write these two steps out (CTEs c and e), as does a client's
-- message (mailbox/mailbox.sql's EnqueueWithInbound).

-- name: Append
WITH c AS (INSERT INTO gateway.conversations AS c (conversation_key, agent_id, last_seq)
           SELECT :conversation_key::text, :agent_id::text, :count::bigint
           ON CONFLICT (conversation_key) DO UPDATE SET last_seq = c.last_seq + :count RETURNING last_seq)
INSERT INTO gateway.events (conversation_key, seq, request_id, kind, author, text, payload, raw, actor_principal_id, created_at)
SELECT :conversation_key, c.last_seq - :count + u.ord, u.request_id, u.kind, u.author, u.text, u.payload, u.raw, u.actor, u.at
FROM c, unnest(:request_ids::uuid[], :kinds::text[], :authors::text[], :texts::text[], :payloads::bytea[], :raws::bytea[],
               :actors::uuid[], :ats::timestamptz[])
  WITH ORDINALITY AS u(request_id, kind, author, text, payload, raw, actor, at, ord)
RETURNING seq;

-- name: AppendForRequest
-- An agent's events of its request in flight, with the request's checks and bookkeeping: appends only
-- while request :request_id is dispatched to session :epoch with :expected_stored agent events stored
-- (locking it), then counts :counted more and, with an :end_state, ends it. Answers what was stored
-- before (null: not in flight for that epoch) and the first new sequence number (null: nothing appended).
WITH r AS (SELECT agent_events FROM gateway.requests
           WHERE id = :request_id AND state = 'dispatched' AND dispatch_epoch = :epoch FOR UPDATE),
c AS (INSERT INTO gateway.conversations AS c (conversation_key, agent_id, last_seq)
      SELECT :conversation_key::text, :agent_id::text, :count::bigint FROM r WHERE r.agent_events = :expected_stored
      ON CONFLICT (conversation_key) DO UPDATE SET last_seq = c.last_seq + :count RETURNING last_seq),
e AS (INSERT INTO gateway.events (conversation_key, seq, request_id, kind, author, text, payload, raw, actor_principal_id, created_at)
      SELECT :conversation_key, c.last_seq - :count + u.ord, u.request_id, u.kind, u.author, u.text, u.payload, u.raw, u.actor, u.at
      FROM c, unnest(:request_ids::uuid[], :kinds::text[], :authors::text[], :texts::text[], :payloads::bytea[], :raws::bytea[],
                     :actors::uuid[], :ats::timestamptz[])
        WITH ORDINALITY AS u(request_id, kind, author, text, payload, raw, actor, at, ord)
      RETURNING seq),
n AS (UPDATE gateway.requests SET agent_events = agent_events + :counted, state = COALESCE(:end_state::text, state),
             finished_at = CASE WHEN :end_state::text IS NULL THEN finished_at ELSE now() END
      WHERE id = :request_id AND EXISTS (SELECT 1 FROM c))
SELECT (SELECT agent_events FROM r) AS stored, (SELECT min(seq) FROM e) AS first_seq;

-- name: After
-- Events with seq > :after, in order, at most :limit.
SELECT conversation_key, seq, request_id, kind, author, text, payload, actor_principal_id, created_at
FROM gateway.events WHERE conversation_key = :conversation_key AND seq > :after ORDER BY seq LIMIT :limit;

-- name: Before
-- The :limit events before :before (the newest ones when it is null), oldest first.
SELECT * FROM (SELECT conversation_key, seq, request_id, kind, author, text, payload, actor_principal_id, created_at
               FROM gateway.events WHERE conversation_key = :conversation_key AND (:before::bigint IS NULL OR seq < :before)
               ORDER BY seq DESC LIMIT :limit) newest
ORDER BY seq;

-- name: Page
-- A page for GetEvents: after a sequence number, optionally from :since and up to :until.
SELECT conversation_key, seq, request_id, kind, author, text, payload, actor_principal_id, created_at
FROM gateway.events
WHERE conversation_key = :conversation_key AND seq > :after
  AND (:since::timestamptz IS NULL OR created_at >= :since) AND (:until::timestamptz IS NULL OR created_at <= :until)
ORDER BY seq LIMIT :limit;

-- name: OfRequest
SELECT conversation_key, seq, request_id, kind, author, text, payload, actor_principal_id, created_at
FROM gateway.events WHERE request_id = :request_id ORDER BY seq;

-- name: LastSeq
SELECT last_seq FROM gateway.conversations WHERE conversation_key = :conversation_key;
