/**
 * What the store hands the OTLP exporter for one run at a time (otlp-page.sql.ts writes it, the
 * exporter thread turns it into spans), and what the exporter hands back once the endpoint
 * acknowledged it. Instants are Unix nanoseconds in decimal text: JSON numbers lose them.
 */

/** A run whose sealed evidence was not all sent yet. */
export interface OtlpPendingRun {
  run_id: string;
}

/** The run itself: the `invoke_agent` span. */
export interface OtlpRunFacts {
  run_id: string;
  /** The run's object in the graph (null for a run known only from telemetry). */
  object_hash: string | null;
  /** The latest checkpoint the page was read under. */
  checkpoint_hash: string;
  start_ns: string;
  end_ns: string;
  /** The last verify's status (`ok`, `failed`), or null when the run was never verified. */
  verify_status: string | null;
  /** Token usage provd read from the run's TLS bodies; null when it read none. */
  usage: { input_tokens: number; output_tokens: number } | null;
  /** The agent whose hooks wrote the run (claude, codex, gemini); null for a run no hook wrote. */
  agent: string | null;
}

/** One tool call: an `execute_tool` span. */
export interface OtlpToolCall {
  tool_call_id: string;
  /** The tool's name (an agent's hook) or the recorded command. */
  name: string;
  status: string;
  object_hash: string;
  start_ns: string;
  end_ns: string | null;
  exit_code: number | null;
}

/** One runtime event: a span under its tool call's span, or under the run's. */
export interface OtlpEvent {
  id: string;
  seq: string;
  type: string;
  time_ns: string;
  pid: number | null;
  ppid: number | null;
  comm: string | null;
  /** The tool call it is tied to, when that call is stored in the run (else the run is its parent). */
  tool_call_id: string | null;
  evidence_level: string;
  correlation_method: string;
  /** The policy's decision on it, when it made one. */
  decision: { decision: string; rule_id: string } | null;
  /** Type-specific attributes as stored (canonical JSON text). */
  attrs: string;
  hash: string;
}

/** One page of a run: the spans to send, and where the cursor goes once they are acknowledged. */
export interface OtlpPage {
  run_id: string;
  /**
   * The run's own span, on the page that completes a checkpoint (null on the pages before it): it is
   * sent once a checkpoint, with the run's span as of it, not again with every page.
   */
  run: OtlpRunFacts | null;
  tool_calls: OtlpToolCall[];
  events: OtlpEvent[];
  /** The position after the page's last event. */
  next_seq: string;
  /** The checkpoint the run is sent up to once this page is acknowledged, or null when pages follow. */
  done_chain_index: string | null;
}

/** What the store records once a page was acknowledged (or refused for good: `rejected`). */
export interface OtlpAck {
  run_id: string;
  next_seq: string;
  done_chain_index: string | null;
  tool_calls: { tool_call_id: string; status: string }[];
  spans: number;
  rejected: boolean;
}
