/**
 * Trace and span ids derived from provd's own ids, so a page sent again (at least once) carries the
 * same spans and a backend that keys spans by id keeps one: the trace from the run, a span from
 * what it stands for (the run, a tool call, an event) and its id. The first bytes of a SHA-256.
 */
import { createHash } from 'node:crypto';

/** What a span stands for. */
export type SpanSubject = 'run' | 'tool_call' | 'event';

function hexOf(text: string, chars: number): string {
  const hex = createHash('sha256').update(text).digest('hex').slice(0, chars);
  // an all-zero id is invalid in OTLP: 2^-64 at worst, but never sent
  return /^0+$/.test(hex) ? `${hex.slice(0, -1)}1` : hex;
}

/** The trace id (32 hex digits) of run `run`. */
export function traceIdOf(run: string): string {
  return hexOf(`provd.otlp.trace\u0000${run}`, 32);
}

/** The span id (16 hex digits) of `subject` `id` in run `run`. */
export function spanIdOf(run: string, subject: SpanSubject, id: string): string {
  return hexOf(`provd.otlp.span\u0000${run}\u0000${subject}\u0000${id}`, 16);
}
