-- How many acts an entry stands for. Failed authentications are sampled (audit.FailedLogins): the
-- first of a source and reason in a window is one entry, the rest of the window one entry with their count.
ALTER TABLE audit ADD COLUMN count integer NOT NULL DEFAULT 1 CHECK (count >= 1);
