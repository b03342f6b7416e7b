-- 012: what GET /v1/signals reads of a run's events, folded in with the causality view's process
-- rollup (src/security/signals/signal-values.ts, llm-usage-values.ts), behind the commits and under
-- its mark (timeline_rollup_mark), so the signals read a row per distinct value of a run instead of
-- its events: measured at 10M events, a run's execve paths took 180 ms from events, mostly reading
-- the attrs of every row group its events are spread over.

-- One row per run and distinct value: a binary executed (execve attrs.path), a file (path of a file
-- event), a destination (dst_ip:dst_port), a DNS name, an exit code or signal of process_exit, and
-- the severity, decision and rule of the policy decisions on the run's events.
CREATE TABLE run_signal_values (
  run_id          VARCHAR NOT NULL,
  kind            UTINYINT NOT NULL,   -- signalValueKinds in signal-values.ts
  value_key       UHUGEINT NOT NULL,   -- md5_number(value): a short key, whatever the value's length
  value           VARCHAR NOT NULL,
  events          BIGINT NOT NULL,
  first_event     STRUCT(seq BIGINT, id VARCHAR) NOT NULL, -- the run's first event with it, by position
  PRIMARY KEY (run_id, kind, value_key)
);

-- LLM token usage read from the HTTP body of a run's tls_read response, one row per response whose
-- body reports usage (src/security/signals/llm-usage.ts reads it).
CREATE TABLE run_llm_usage (
  run_id              VARCHAR NOT NULL,
  event_id            VARCHAR NOT NULL,
  seq                 BIGINT NOT NULL,
  format              VARCHAR NOT NULL,  -- openai_chat, openai_responses, anthropic
  model               VARCHAR,
  input_tokens        BIGINT NOT NULL,   -- cached and cache-written tokens included
  output_tokens       BIGINT NOT NULL,
  cached_input_tokens BIGINT NOT NULL,
  cache_write_tokens  BIGINT NOT NULL,
  complete            BOOLEAN NOT NULL   -- false: the body was cut before its last usage, counts are a floor
);

-- the events folded in before this format hold none of these values yet: fold every event in again
DELETE FROM timeline_processes;
DELETE FROM timeline_process_types;
UPDATE timeline_rollup_mark SET through_seq = 0;
