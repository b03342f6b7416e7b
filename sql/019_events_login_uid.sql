-- 019: each event's audit login uid (src/model/event-fields.ts: login_uid), the uid that logged in
-- and that sudo and setuid leave as it was: Tetragon sends it as `auid`, Falco as
-- `user.loginuid`, the native format as `login_uid`. The content hash covers it only when set, so
-- every event stored before this format keeps its hash (null here).

ALTER TABLE events ADD COLUMN IF NOT EXISTS login_uid UINTEGER;
