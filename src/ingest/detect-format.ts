/** Per-line format detection for `format=auto`: a mixed body may interleave all three formats. */
import { tetragonEventKind } from './tetragon.js';

/** A concrete input format, as detectFormat picks it. */
export type LineFormat = 'native' | 'tetragon' | 'falco';

/**
 * The format of one parsed line: a Tetragon event-kind key (`process_exec`, `process_kprobe`, ...) →
 * tetragon; an `output_fields` object, or an alert's `rule`, `priority` and `output` without a native
 * event type (Falco 0.41+ can leave output_fields out) → falco; anything else → native, whose parser
 * names what is wrong.
 */
export function detectFormat(value: Record<string, unknown>): LineFormat {
  if (tetragonEventKind(value) !== undefined) return 'tetragon';
  const fields = value.output_fields;
  if (typeof fields === 'object' && fields !== null && !Array.isArray(fields)) return 'falco';
  if (isBareAlert(value)) return 'falco';
  return 'native';
}

function isBareAlert(value: Record<string, unknown>): boolean {
  return (
    (value.output_fields === undefined || value.output_fields === null) &&
    typeof value.rule === 'string' &&
    typeof value.output === 'string' &&
    value.priority !== undefined &&
    value.type === undefined &&
    value.event_type === undefined
  );
}
