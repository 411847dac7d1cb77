-- A second schema for the migration tests (PooledHistoryCheckTest): platform itself migrates only auth.
CREATE TABLE probe_items (id bigint PRIMARY KEY);
