-- Retention deletes expired tokens (TokenRetention) in batches: it finds them by expiry.
CREATE INDEX tokens_expires ON tokens (expires_at);
