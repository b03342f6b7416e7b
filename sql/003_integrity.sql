-- 003: values as the parsers accept them, and the idempotency ledger of ingest.

-- pids are unsigned 32-bit (the parsers accept 0..4294967295); INTEGER held only half of that.
ALTER TABLE events ALTER pid TYPE UINTEGER;
ALTER TABLE events ALTER tgid TYPE UINTEGER;
ALTER TABLE events ALTER ppid TYPE UINTEGER;

-- What windows count of each event (src/telemetry/window-deltas.ts), so that a spooled event that
-- joins a run later is counted in SQL exactly as at ingest. NULL for events stored before format 3.
ALTER TABLE events ADD COLUMN risky BOOLEAN;
ALTER TABLE events ADD COLUMN bytes BIGINT;

-- The first answer given for each Idempotency-Key of POST /v1/telemetry/ingest, written in the
-- transaction that stored the request's events; kept a day (src/telemetry/ingest-ledger.ts).
CREATE TABLE ingest_requests (
  idempotency_key VARCHAR PRIMARY KEY,
  body_digest     VARCHAR NOT NULL,   -- sha256 of format and body: the same key with another body is refused
  answer          VARCHAR NOT NULL,   -- the provenance.ingest/v1 body, as first answered
  created_ns      BIGINT NOT NULL
);
