-- Flyway's history of one schema, read before Flyway starts (AppliedMigrations): the connection's
-- search_path names the schema, so neither statement names it.

-- name: HistoryExists
SELECT to_regclass('flyway_schema_history') IS NOT NULL AS present

-- name: History
SELECT installed_rank, version, script, checksum, type, success
FROM flyway_schema_history
ORDER BY installed_rank
