-- Retention (ConversationRetention) finds old ledger events and old finished requests by time, in
-- batches; without these indexes each batch would scan the tables.
CREATE INDEX events_created_at ON events (created_at);
CREATE INDEX requests_finished ON requests (finished_at) WHERE state IN ('done', 'error', 'cancelled');
