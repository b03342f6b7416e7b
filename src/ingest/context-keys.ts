/**
 * Application context that raw telemetry may not carry (docs/contract.md "Runtime event record"):
 * run and tool call come only from bindings, so a line asserting them is refused, not trusted.
 */

/** Keys that assert application context, refused at the top level and inside an event's body. */
export const contextKeys = [
  'run_id',
  'run',
  'tool_call_id',
  'tool_call',
  'binding_id',
  'binding',
  'session_id',
  'correlation',
  'evidence_level',
] as const;

/** The first context key present in `object` (even with a null value), or undefined. */
export function findContextKey(object: Record<string, unknown>): string | undefined {
  // spelled out rather than looped: nine monomorphic loads beat a keyed lookup per key per line
  if (object.run_id !== undefined) return 'run_id';
  if (object.run !== undefined) return 'run';
  if (object.tool_call_id !== undefined) return 'tool_call_id';
  if (object.tool_call !== undefined) return 'tool_call';
  if (object.binding_id !== undefined) return 'binding_id';
  if (object.binding !== undefined) return 'binding';
  if (object.session_id !== undefined) return 'session_id';
  if (object.correlation !== undefined) return 'correlation';
  if (object.evidence_level !== undefined) return 'evidence_level';
  return undefined;
}
