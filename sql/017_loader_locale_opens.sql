-- 017: each event says whether it is a loader or locale open (the opens every exec makes before
-- its command does anything), which every view of a run hides by default with a count. The commit
-- sets it as it stores a batch (src/telemetry/loader-opens.sql.ts holds the one rule); the rows
-- stored before this format are set by the same rule when the store opens (null until then).

ALTER TABLE events ADD COLUMN IF NOT EXISTS loader_locale BOOLEAN;
