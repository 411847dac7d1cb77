-- When each token was last used (recorded at most about once a minute per token, in batches).
ALTER TABLE tokens ADD COLUMN last_used_at timestamptz;
