/** Per-line format detection for `format=auto`: a mixed body may interleave all three formats. */
import { tetragonEventKind } from './tetragon.js';

/** A concrete input format, as detectFormat picks it. */
export type LineFormat = 'native' | 'tetragon' | 'falco';

/**
 * The format of one parsed line: a Tetragon event-kind key (`process_exec`, `process_kprobe`, ...) →
 * tetragon; an `output_fields` object → falco; anything else → native, whose parser names what is wrong.
 */
export function detectFormat(value: Record<string, unknown>): LineFormat {
  if (tetragonEventKind(value) !== undefined) return 'tetragon';
  const fields = value.output_fields;
  if (typeof fields === 'object' && fields !== null && !Array.isArray(fields)) return 'falco';
  return 'native';
}
