/**
 * The exporter thread's work: a page's JSON (as the store wrote it, passed on untouched by the main
 * thread) is parsed, built into spans (otlp-spans.ts) and sent with the SDK's OTLP/HTTP protobuf
 * exporter; the answer says whether the endpoint acknowledged it, refused it for good, or failed.
 */
import type { MessagePort } from 'node:worker_threads';
import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-proto';
import type { OtlpAck, OtlpPage } from './otlp-page.js';
import { OtlpSpanBuilder } from './otlp-spans.js';

/** What the main thread sends: one page, by the id its answer carries. */
export interface OtlpSendRequest {
  id: number;
  page: Uint8Array;
}

/**
 * `sent`: acknowledged; `rejected`: the endpoint refused the page itself (400, 413, 415, 422), so
 * sending it again cannot succeed; `failed`: anything else (down, timeout, 5xx, 401): try again.
 */
export type OtlpSendOutcome =
  | { id: number; outcome: 'sent' | 'rejected'; ack: OtlpAck; message: string | null }
  | { id: number; outcome: 'failed'; message: string };

/** ExportResultCode.SUCCESS of @opentelemetry/core (the exporter's own dependency, not ours). */
const exportSucceeded = 0;

/** Statuses that refuse a page's content, not the sender: sent again, the same page is refused again. */
const refusingStatuses = new Set([400, 413, 415, 422]);

/** Answers `port`'s pages, one at a time, by sending them to `url`. */
export function serveOtlpSender(port: MessagePort, url: string): void {
  const builder = new OtlpSpanBuilder();
  // headers (an API key) come from OTEL_EXPORTER_OTLP_HEADERS / _TRACES_HEADERS, as the SDK reads them
  const exporter = new OTLPTraceExporter({ url, timeoutMillis: 10_000 });
  port.on('message', (request: OtlpSendRequest) => {
    void send(builder, exporter, request).then((answer) => port.postMessage(answer));
  });
}

async function send(
  builder: OtlpSpanBuilder,
  exporter: OTLPTraceExporter,
  request: OtlpSendRequest,
): Promise<OtlpSendOutcome> {
  let page: OtlpPage;
  let spans;
  try {
    page = JSON.parse(new TextDecoder().decode(request.page)) as OtlpPage;
    spans = builder.build(page);
  } catch (error) {
    return { id: request.id, outcome: 'failed', message: `failed to build spans: ${messageOf(error)}` };
  }
  const result = await new Promise<{ code: number; error?: Error }>((resolve) =>
    exporter.export(spans, resolve),
  );
  const ack: OtlpAck = {
    run_id: page.run_id,
    next_seq: page.next_seq,
    done_chain_index: page.done_chain_index,
    tool_calls: page.tool_calls.map((call) => ({ tool_call_id: call.tool_call_id, status: call.status })),
    spans: spans.length,
    rejected: false,
  };
  if (result.code === exportSucceeded) return { id: request.id, outcome: 'sent', ack, message: null };
  const status = (result.error as { code?: unknown } | undefined)?.code;
  const message = `${result.error?.message ?? 'export failed'}${typeof status === 'number' ? ` (HTTP ${status})` : ''}`;
  if (typeof status === 'number' && refusingStatuses.has(status))
    return { id: request.id, outcome: 'rejected', ack: { ...ack, rejected: true }, message };
  return { id: request.id, outcome: 'failed', message };
}

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
