-- Packs schema: what the built-in tool packs store for agents (builtin:base logs, todos and the
-- shared board; builtin:notes; builtin:mail). The size limits here repeat ToolInputs' limits, so a
-- row that slipped past the Java checks is still refused (BuiltinLimitsTest proves they agree).
-- seq orders rows created in the same millisecond: "newest first" stays true for them.

-- Checks every tag of a log entry; a CHECK constraint cannot hold a subquery itself.
CREATE FUNCTION tags_within_limits(tags text[]) RETURNS boolean
  LANGUAGE sql IMMUTABLE PARALLEL SAFE
  AS $$ SELECT cardinality(tags) <= 32 AND coalesce((SELECT bool_and(length(t) <= 100) FROM unnest(tags) AS t), true) $$;

-- log_entry / log_search: an agent's own activity log.
CREATE TABLE log_entries (
  id          uuid        PRIMARY KEY,
  seq         bigint      GENERATED ALWAYS AS IDENTITY,
  agent_id    text        NOT NULL CHECK (length(agent_id) BETWEEN 1 AND 200),
  message     text        NOT NULL CHECK (length(message) BETWEEN 1 AND 65536),
  tags        text[]      NOT NULL DEFAULT '{}' CHECK (tags_within_limits(tags)),
  created_at  timestamptz NOT NULL
);
CREATE INDEX log_entries_by_agent ON log_entries (agent_id, created_at DESC, seq DESC);

-- todo_*: an agent's own todo list.
CREATE TABLE todos (
  id           uuid        PRIMARY KEY,
  seq          bigint      GENERATED ALWAYS AS IDENTITY,
  agent_id     text        NOT NULL CHECK (length(agent_id) BETWEEN 1 AND 200),
  description  text        NOT NULL CHECK (length(description) BETWEEN 1 AND 65536),
  status       text        NOT NULL DEFAULT 'pending' CHECK (status IN ('pending', 'in_progress', 'completed')),
  priority     text        NOT NULL DEFAULT 'medium' CHECK (priority IN ('low', 'medium', 'high')),
  notes        text        NOT NULL DEFAULT '' CHECK (length(notes) <= 65536),
  due_date     timestamptz,
  created_at   timestamptz NOT NULL,
  updated_at   timestamptz NOT NULL
);
CREATE INDEX todos_by_agent ON todos (agent_id, created_at DESC, seq DESC);

-- bbs_*: one board shared by every agent. A thread is a post without thread_id and with a subject;
-- a reply names its thread and has no subject. Posts are never deleted.
CREATE TABLE bbs_posts (
  id          uuid        PRIMARY KEY,
  seq         bigint      GENERATED ALWAYS AS IDENTITY,
  agent_id    text        NOT NULL CHECK (length(agent_id) BETWEEN 1 AND 200),
  thread_id   uuid        REFERENCES bbs_posts (id),
  subject     text        CHECK (length(subject) BETWEEN 1 AND 200),
  content     text        NOT NULL CHECK (length(content) BETWEEN 1 AND 65536),
  created_at  timestamptz NOT NULL,
  CHECK ((thread_id IS NULL) = (subject IS NOT NULL))
);
CREATE INDEX bbs_threads_newest ON bbs_posts (created_at DESC, seq DESC) WHERE thread_id IS NULL;
CREATE INDEX bbs_replies_oldest ON bbs_posts (thread_id, created_at, seq) WHERE thread_id IS NOT NULL;

-- note_*: an agent's own key/value notes. Keys sort by code point (collation "C"), whatever the
-- database's default collation, so note_list's order is the same everywhere.
CREATE TABLE notes (
  id          uuid        PRIMARY KEY,
  agent_id    text        NOT NULL CHECK (length(agent_id) BETWEEN 1 AND 200),
  key         text        COLLATE "C" NOT NULL CHECK (length(key) BETWEEN 1 AND 200),
  value       text        NOT NULL CHECK (length(value) <= 65536),
  created_at  timestamptz NOT NULL,
  updated_at  timestamptz NOT NULL,
  UNIQUE (agent_id, key)
);

-- mail_*: messages between agents; only the recipient reads them. read_at is set once, on the
-- first mail_read.
CREATE TABLE mail (
  id             uuid        PRIMARY KEY,
  seq            bigint      GENERATED ALWAYS AS IDENTITY,
  from_agent_id  text        NOT NULL CHECK (length(from_agent_id) BETWEEN 1 AND 200),
  to_agent_id    text        NOT NULL CHECK (length(to_agent_id) BETWEEN 1 AND 200),
  subject        text        NOT NULL CHECK (length(subject) BETWEEN 1 AND 200),
  content        text        NOT NULL CHECK (length(content) BETWEEN 1 AND 65536),
  read_at        timestamptz,
  created_at     timestamptz NOT NULL
);
CREATE INDEX mail_inbox ON mail (to_agent_id, created_at DESC, seq DESC);
CREATE INDEX mail_inbox_unread ON mail (to_agent_id, created_at DESC, seq DESC) WHERE read_at IS NULL;
