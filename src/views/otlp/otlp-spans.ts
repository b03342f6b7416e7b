/**
 * Builds one page's spans with the OpenTelemetry SDK's tracer (on the exporter thread): an
 * `invoke_agent` span for the run, an `execute_tool` span per tool call under it, and a span per
 * runtime event under its tool call's span (under the run's when it is tied to none), with the
 * GenAI semantic conventions' attributes and provd's own under `provd.*`. Ids come from provd's
 * (otlp-ids.ts) through the tracer's IdGenerator; the spans are collected as they end, not exported
 * by a processor: the caller exports a page whole and learns whether it was acknowledged.
 */
import {
  ROOT_CONTEXT,
  SpanKind,
  SpanStatusCode,
  TraceFlags,
  trace,
  type Attributes,
  type Context,
  type HrTime,
} from '@opentelemetry/api';
import { resourceFromAttributes } from '@opentelemetry/resources';
import {
  BasicTracerProvider,
  type IdGenerator,
  type ReadableSpan,
  type SpanProcessor,
} from '@opentelemetry/sdk-trace-base';
import type { OtlpEvent, OtlpPage, OtlpRunFacts, OtlpToolCall } from './otlp-page.js';
import { spanIdOf, traceIdOf } from './otlp-ids.js';

/** Longest attribute value sent (the store keeps the whole value; the event's hash names it). */
const attributeValueLengthLimit = 4096;

/** Characters of a tool's name in its span's name (the agent chooses it; the attribute has it whole). */
const maxNameInSpanName = 128;

/** Hands the tracer the ids of the span it starts next. */
class ChosenIds implements IdGenerator {
  traceId = '';
  spanId = '';
  generateTraceId(): string {
    return this.traceId;
  }
  generateSpanId(): string {
    return this.spanId;
  }
}

/** Keeps every span that ends, for the caller to export whole. */
class EndedSpans implements SpanProcessor {
  spans: ReadableSpan[] = [];
  onStart(): void {}
  onEnd(span: ReadableSpan): void {
    this.spans.push(span);
  }
  forceFlush(): Promise<void> {
    return Promise.resolve();
  }
  shutdown(): Promise<void> {
    return Promise.resolve();
  }
}

/** Turns pages into spans; one per exporter thread. */
export class OtlpSpanBuilder {
  private readonly ids = new ChosenIds();
  private readonly ended = new EndedSpans();
  private readonly tracer;

  constructor(serviceName = 'provd') {
    const provider = new BasicTracerProvider({
      resource: resourceFromAttributes({ 'service.name': serviceName }),
      idGenerator: this.ids,
      spanProcessors: [this.ended],
      spanLimits: { attributeValueLengthLimit },
    });
    this.tracer = provider.getTracer('provd');
  }

  /** The page's spans: the run's (on a checkpoint's last page), then its tool calls', then its events'. */
  build(page: OtlpPage): ReadableSpan[] {
    this.ended.spans = [];
    const traceId = traceIdOf(page.run_id);
    const runSpanId = spanIdOf(page.run_id, 'run', page.run_id);
    if (page.run !== null) this.runSpan(traceId, runSpanId, page.run);
    // the run's span may come with a later page: its children name it by its id
    const runContext = this.contextOf(traceId, runSpanId);
    for (const call of page.tool_calls) this.toolCallSpan(traceId, page.run_id, runContext, call);
    for (const event of page.events) this.eventSpan(traceId, page.run_id, runContext, event);
    return this.ended.spans;
  }

  private runSpan(traceId: string, spanId: string, run: OtlpRunFacts): void {
    // the conventions' span name, `invoke_agent {gen_ai.agent.name}`, where a hook said the agent
    const name = run.agent === null ? 'invoke_agent' : `invoke_agent ${run.agent}`;
    const span = this.start(traceId, spanId, ROOT_CONTEXT, name, {
      startNs: run.start_ns,
      attributes: {
        'gen_ai.operation.name': 'invoke_agent',
        'gen_ai.conversation.id': run.run_id,
        ...(run.agent === null ? {} : { 'gen_ai.agent.name': run.agent }),
        'provd.run.id': run.run_id,
        'provd.checkpoint.hash': run.checkpoint_hash,
        'provd.verify.status': run.verify_status ?? 'unverified',
        ...(run.object_hash === null ? {} : { 'provd.object.hash': run.object_hash }),
        ...(run.usage === null
          ? {}
          : {
              'gen_ai.usage.input_tokens': run.usage.input_tokens,
              'gen_ai.usage.output_tokens': run.usage.output_tokens,
            }),
      },
    });
    span.end(hrTime(run.end_ns));
  }

  private toolCallSpan(traceId: string, run: string, parent: Context, call: OtlpToolCall): void {
    const failed = !['completed', 'asserted'].includes(call.status);
    const span = this.start(
      traceId,
      spanIdOf(run, 'tool_call', call.tool_call_id),
      parent,
      `execute_tool ${call.name.slice(0, maxNameInSpanName)}`,
      {
        startNs: call.start_ns,
        attributes: {
          'gen_ai.operation.name': 'execute_tool',
          'gen_ai.tool.name': call.name,
          'gen_ai.tool.call.id': call.tool_call_id,
          'provd.tool_call.status': call.status,
          'provd.object.hash': call.object_hash,
          ...(call.exit_code === null ? {} : { 'process.exit.code': call.exit_code }),
        },
      },
    );
    if (failed) span.setStatus({ code: SpanStatusCode.ERROR, message: call.status });
    span.end(hrTime(call.end_ns ?? call.start_ns));
  }

  private eventSpan(traceId: string, run: string, runContext: Context, event: OtlpEvent): void {
    const parent =
      event.tool_call_id === null
        ? runContext
        : this.contextOf(traceId, spanIdOf(run, 'tool_call', event.tool_call_id));
    const span = this.start(traceId, spanIdOf(run, 'event', event.id), parent, event.type, {
      startNs: event.time_ns,
      attributes: {
        'provd.event.id': event.id,
        'provd.event.hash': event.hash,
        'provd.event.type': event.type,
        'provd.event.seq': event.seq,
        'provd.evidence_level': event.evidence_level,
        'provd.correlation.method': event.correlation_method,
        ...(event.decision === null
          ? {}
          : { 'provd.decision': event.decision.decision, 'provd.rule_id': event.decision.rule_id }),
        ...(event.pid === null ? {} : { 'process.pid': event.pid }),
        ...(event.ppid === null ? {} : { 'process.parent_pid': event.ppid }),
        ...(event.comm === null ? {} : { 'process.executable.name': event.comm }),
        ...attributesOf(event.attrs),
      },
    });
    if (event.decision !== null && event.decision.decision !== 'allow')
      span.setStatus({
        code: SpanStatusCode.ERROR,
        message: `${event.decision.decision}: ${event.decision.rule_id}`,
      });
    span.end(hrTime(event.time_ns));
  }

  private start(
    traceId: string,
    spanId: string,
    parent: Context,
    name: string,
    options: { startNs: string; attributes: Attributes },
  ) {
    this.ids.traceId = traceId;
    this.ids.spanId = spanId;
    return this.tracer.startSpan(
      name,
      { kind: SpanKind.INTERNAL, startTime: hrTime(options.startNs), attributes: options.attributes },
      parent,
    );
  }

  private contextOf(traceId: string, spanId: string): Context {
    return trace.setSpanContext(ROOT_CONTEXT, { traceId, spanId, traceFlags: TraceFlags.SAMPLED });
  }
}

/** Unix nanoseconds (decimal text) as the SDK's [seconds, nanoseconds]. */
function hrTime(ns: string): HrTime {
  const value = BigInt(ns);
  return [Number(value / 1_000_000_000n), Number(value % 1_000_000_000n)];
}

/**
 * The event's attrs as `provd.event.attrs`, less an HTTP body (a prompt or a model's answer, maybe
 * with what the agent read: it stays in the store, named by the event's hash, and leaves the host
 * only through provd's own API), and what the semantic conventions name: a file's path, argv, a
 * peer, a DNS name.
 */
function attributesOf(attrsJson: string): Attributes {
  const attrs = JSON.parse(attrsJson) as Record<string, unknown>;
  const out: Attributes = { 'provd.event.attrs': attrsJson };
  const http = attrs['http'];
  if (typeof http === 'object' && http !== null && 'body' in http) {
    delete (http as Record<string, unknown>)['body'];
    out['provd.event.attrs'] = JSON.stringify(attrs);
    out['provd.event.body_omitted'] = true;
  }
  if (typeof attrs['path'] === 'string') out['file.path'] = attrs['path'];
  const argv = attrs['argv'];
  if (Array.isArray(argv) && argv.every((arg) => typeof arg === 'string')) out['process.command_args'] = argv;
  if (typeof attrs['dst_ip'] === 'string') out['server.address'] = attrs['dst_ip'];
  if (typeof attrs['dst_port'] === 'number') out['server.port'] = attrs['dst_port'];
  if (typeof attrs['query'] === 'string') out['dns.question.name'] = attrs['query'];
  return out;
}
