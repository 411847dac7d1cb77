-- An agent's row changes on every CLAIM and COMPLETE (status, current task, counters). With status
-- in no index (agents_live's predicate named it), those are HOT updates: no index entries written,
-- given free room on the row's page (fillfactor). The index of live agents by heartbeat keys on
-- offline_at instead, which is set exactly when an agent goes offline and cleared when it registers.
DROP INDEX swarm.agents_live;
CREATE INDEX agents_live_by_heartbeat ON swarm.agents (last_heartbeat) WHERE offline_at IS NULL;
ALTER TABLE swarm.agents SET (fillfactor = 70);
