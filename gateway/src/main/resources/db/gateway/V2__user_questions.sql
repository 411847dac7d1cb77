-- Questions agents asked their users through the ask_user tool. Each is decided exactly once:
-- 'open' becomes 'answered' (AnswerQuestion, from any node) or 'expired' (the asking pack host gave
-- up waiting); an open question past expires_at can no longer be answered.
CREATE TABLE questions (
  question_id       uuid        PRIMARY KEY,
  agent_id          text        NOT NULL,
  conversation_key  text        NOT NULL,
  request_id        uuid,
  question          bytea       NOT NULL, -- UserQuestionRequest, protobuf
  ledger_seq        bigint      NOT NULL,
  state             text        NOT NULL CHECK (state IN ('open', 'answered', 'expired')),
  selected          text[],
  custom_text       text,
  created_at        timestamptz NOT NULL DEFAULT now(),
  expires_at        timestamptz NOT NULL,
  decided_at        timestamptz,
  decided_by        uuid
);
CREATE INDEX questions_open ON questions (conversation_key, ledger_seq) WHERE state = 'open';
