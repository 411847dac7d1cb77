-- Retention (ConversationRetention) finds old ledger events and old finished requests by time, in
-- batches; without these indexes each batch would scan the tables.
CREATE INDEX events_created_at ON events (created_at);
CREATE INDEX requests_finished ON requests (finished_at) WHERE state IN ('done', 'error', 'cancelled');
-- a finished request's questions go with it
CREATE INDEX questions_request ON questions (request_id) WHERE request_id IS NOT NULL;
