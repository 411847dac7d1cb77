ALTER TABLE probe_items ADD COLUMN label text;
