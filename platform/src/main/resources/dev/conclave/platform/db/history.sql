-- Flyway's history of one schema, read before Flyway starts (AppliedMigrations): the connection's
-- search_path names the schema, so neither HistoryExists nor History names it. Over JDBC the
-- connection's schema is set; over the node's pool (a node's start) UseSchema sets it for the
-- read's transaction only, so the pooled connection goes back with its own search_path.

-- name: UseSchema
SELECT set_config('search_path', quote_ident(:schema), true)

-- name: HistoryExists
SELECT to_regclass('flyway_schema_history') IS NOT NULL AS present

-- name: History
SELECT installed_rank, version, script, checksum, type, success
FROM flyway_schema_history
ORDER BY installed_rank
