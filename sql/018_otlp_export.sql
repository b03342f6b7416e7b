-- 018: what the OTLP export (--otlp-endpoint, src/views/otlp/) sent and the endpoint acknowledged,
-- so a restart resends only what was not acknowledged (at least once). Per run: the checkpoint
-- whose events were all sent, and the position of the next event to send; per tool call: the
-- status its span was last sent with (a call whose status changes is sent again, same span id).

CREATE TABLE IF NOT EXISTS otlp_cursor (
  run_id          VARCHAR PRIMARY KEY,
  chain_index     BIGINT NOT NULL,     -- the run's checkpoint whose sealed events were all sent
  next_seq        BIGINT NOT NULL,     -- the first event position not yet sent
  sent_ns         BIGINT NOT NULL
);

CREATE TABLE IF NOT EXISTS otlp_tool_calls (
  run_id          VARCHAR NOT NULL,
  tool_call_id    VARCHAR NOT NULL,
  status          VARCHAR NOT NULL,
  PRIMARY KEY (run_id, tool_call_id)
);
