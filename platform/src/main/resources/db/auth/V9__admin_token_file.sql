-- Tokens registered from CONCLAVE_ADMIN_TOKEN_FILE (the bootstrap admin's credential in a Secret): a
-- new value revokes the ones it replaces, and only those (an admin's other tokens stay).
ALTER TABLE tokens ADD COLUMN from_file boolean NOT NULL DEFAULT false;
