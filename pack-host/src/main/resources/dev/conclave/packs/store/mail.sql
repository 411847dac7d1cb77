-- Mail between agents (MailStore, packs.mail). Only the recipient lists or reads a mail.

-- name: Send
INSERT INTO packs.mail (id, from_agent_id, to_agent_id, subject, content, created_at)
VALUES (:id, :from_agent_id, :to_agent_id, :subject, :content, :now);

-- name: Inbox
-- mail addressed to the agent, newest first
SELECT id, from_agent_id, to_agent_id, subject, content, read_at, created_at FROM packs.mail
WHERE to_agent_id = :to_agent_id ORDER BY created_at DESC, seq DESC LIMIT :limit;

-- name: UnreadInbox
-- as Inbox, only mail not read yet: its own statement rather than a flag, so that it can use the
-- partial index on unread mail
SELECT id, from_agent_id, to_agent_id, subject, content, read_at, created_at FROM packs.mail
WHERE to_agent_id = :to_agent_id AND read_at IS NULL ORDER BY created_at DESC, seq DESC LIMIT :limit;

-- name: Read
-- marks the recipient's mail read (only the first read sets the time) and returns it as it is now
UPDATE packs.mail SET read_at = coalesce(read_at, :now) WHERE id = :id AND to_agent_id = :to_agent_id
RETURNING id, from_agent_id, to_agent_id, subject, content, read_at, created_at;
