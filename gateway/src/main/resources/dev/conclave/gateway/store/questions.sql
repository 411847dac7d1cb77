-- Questions agents asked their users (ask_user), and how each was decided (QuestionStore).

-- name: RecordOpen
INSERT INTO gateway.questions (question_id, agent_id, conversation_key, request_id, question, ledger_seq, state, expires_at)
VALUES (:question_id, :agent_id, :conversation_key, :request_id, :question, :ledger_seq, 'open', :expires_at)
ON CONFLICT (question_id) DO NOTHING;

-- name: Answer
-- Answers the agent's open, unexpired question; no row when it is not open (or not the agent's).
UPDATE gateway.questions
SET state = 'answered', selected = :selected, custom_text = :custom_text, decided_at = now(), decided_by = :decided_by
WHERE question_id = :question_id AND agent_id = :agent_id AND state = 'open' AND expires_at > now()
RETURNING question_id, agent_id, conversation_key, question, ledger_seq, state, selected, custom_text, expires_at;

-- name: Expire
-- Expires the question if still open (Find then reads it as it is: answered, if an answer won).
UPDATE gateway.questions SET state = 'expired', decided_at = now() WHERE question_id = :question_id AND state = 'open';

-- name: Find
SELECT question_id, agent_id, conversation_key, question, ledger_seq, state, selected, custom_text, expires_at
FROM gateway.questions WHERE question_id = :question_id;

-- name: OpenIn
-- Questions of the conversation that can still be answered, oldest first.
SELECT question_id, agent_id, conversation_key, question, ledger_seq, state, selected, custom_text, expires_at
FROM gateway.questions
WHERE conversation_key = :conversation_key AND state = 'open' AND expires_at > now()
ORDER BY ledger_seq;
