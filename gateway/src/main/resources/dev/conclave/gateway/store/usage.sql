-- Token usage and tool states reported by agents, and their totals (UsageStore).

-- name: RecordUsage
INSERT INTO gateway.token_usage (agent_id, conversation_key, request_id, input_tokens, output_tokens,
                                 cache_read_tokens, cache_write_tokens, thinking_tokens)
VALUES (:agent_id, :conversation_key, :request_id, :input_tokens, :output_tokens,
        :cache_read_tokens, :cache_write_tokens, :thinking_tokens);

-- name: RecordToolUse
INSERT INTO gateway.tool_calls (request_id, tool_id, agent_id, conversation_key, name, state)
VALUES (:request_id, :tool_id, :agent_id, :conversation_key, :name, 'TOOL_STATE_PENDING')
ON CONFLICT (request_id, tool_id) DO UPDATE SET name = EXCLUDED.name, updated_at = now();

-- name: RecordToolState
INSERT INTO gateway.tool_calls (request_id, tool_id, agent_id, conversation_key, state, detail)
VALUES (:request_id, :tool_id, :agent_id, :conversation_key, :state, :detail)
ON CONFLICT (request_id, tool_id) DO UPDATE SET state = EXCLUDED.state, detail = EXCLUDED.detail, updated_at = now();

-- name: TotalsOfAgent
SELECT count(*) AS reports, count(DISTINCT request_id) AS requests,
       coalesce(sum(input_tokens), 0) AS input, coalesce(sum(output_tokens), 0) AS output,
       coalesce(sum(cache_read_tokens), 0) AS cache_read, coalesce(sum(cache_write_tokens), 0) AS cache_write,
       coalesce(sum(thinking_tokens), 0) AS thinking
FROM gateway.token_usage WHERE agent_id = :key;

-- name: TotalsOfConversation
SELECT count(*) AS reports, count(DISTINCT request_id) AS requests,
       coalesce(sum(input_tokens), 0) AS input, coalesce(sum(output_tokens), 0) AS output,
       coalesce(sum(cache_read_tokens), 0) AS cache_read, coalesce(sum(cache_write_tokens), 0) AS cache_write,
       coalesce(sum(thinking_tokens), 0) AS thinking
FROM gateway.token_usage WHERE conversation_key = :key;

-- name: ToolsOf
-- The latest state of every tool invocation of a request.
SELECT tool_id, name, state, detail, updated_at FROM gateway.tool_calls WHERE request_id = :request_id ORDER BY updated_at, tool_id;
