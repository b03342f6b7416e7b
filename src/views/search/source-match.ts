/**
 * What GET /api/search/sources reports for one place a text appears: an event (which of its
 * values holds the text: path, rename target, an argv element, destination address, DNS name) or a
 * recorded tool call (its command, an argument, its cwd), with the run, the producer and the
 * evidence level. The SQL finds the rows (search-sources.sql.ts); this names the value in each.
 */
import type { DateTimeText } from '../../shared/schema/wire-types.js';
import type { EvidenceLevel } from '../../model/codes.js';
import type { EventSource, EventType } from '../../model/event.js';
import type { EventAttrs } from '../../telemetry/event-json.js';
import type { ObjectHash } from '../../model/object-hash.js';

/** The event values searched, in the order a match is named by. */
export const eventFields = ['path', 'new_path', 'argv', 'dst_ip', 'query'] as const;
/** One of eventFields. */
export type EventField = (typeof eventFields)[number];

/** The tool call values searched, in the order a match is named by. */
export type ToolCallField = 'command' | 'args' | 'cwd';

/** An event one of whose values holds the text. */
export interface EventSourceMatch {
  kind: 'event';
  /** Null for an event no binding attributed to a run. */
  run_id: string | null;
  /** The event id (GET /v1/graph/explain?event=ID explains it). */
  id: string;
  type: EventType;
  /** The producer that reported it. */
  source: EventSource;
  evidence_level: EvidenceLevel;
  time: DateTimeText;
  tool_call_id: string | null;
  field: EventField;
  /** The value holding the text, cut around its first occurrence when longer than valueMax. */
  value: string;
}

/** A recorded tool call one of whose values holds the text. */
export interface ToolCallSourceMatch {
  kind: 'tool_call';
  run_id: string;
  /** The tool call id. */
  id: string;
  /** POST /v1/record stored it. */
  source: 'record';
  /** `self_observed` when provd ran it; `context_asserted` when the caller asserted it. */
  evidence_level: 'self_observed' | 'context_asserted';
  /** When it started (was asserted). */
  time: DateTimeText;
  tool_call_id: string;
  object_hash: ObjectHash;
  field: ToolCallField;
  value: string;
}

/** One place the text appears. */
export type SourceMatch = EventSourceMatch | ToolCallSourceMatch;

/** Longest value shown, in UTF-16 units. */
export const valueMax = 256;

/** The first of an event's searched values that holds `q`, or null. */
export function eventValue(attrs: EventAttrs, q: string): { field: EventField; value: string } | null {
  for (const field of eventFields) {
    const held = attrs[field];
    const values = Array.isArray(held) ? held : [held];
    for (const value of values) {
      if (value === undefined || value === null) continue;
      const text = typeof value === 'string' ? value : JSON.stringify(value);
      if (text.includes(q)) return { field, value: excerpt(text, q) };
    }
  }
  return null;
}

/** The first of a tool call's values that holds `q`, or null. */
export function toolCallValue(
  call: { command: string; args: string[]; cwd: string },
  q: string,
): { field: ToolCallField; value: string } | null {
  const candidates: [ToolCallField, string][] = [
    ['command', call.command],
    ...call.args.map((arg): [ToolCallField, string] => ['args', arg]),
    ['cwd', call.cwd],
  ];
  const found = candidates.find(([, text]) => text.includes(q));
  return found === undefined ? null : { field: found[0], value: excerpt(found[1], q) };
}

/** `text`, or valueMax units of it around the first `q`, with an ellipsis where it was cut. */
function excerpt(text: string, q: string): string {
  if (text.length <= valueMax) return text;
  const at = text.indexOf(q);
  const room = Math.max(0, valueMax - 2 - q.length);
  let start = Math.max(0, Math.min(at - Math.floor(room / 2), text.length - (valueMax - 2)));
  let end = Math.min(text.length, start + valueMax - 2);
  // never split a surrogate pair at a cut
  if (start > 0 && isLowSurrogate(text.charCodeAt(start))) start++;
  if (end < text.length && isLowSurrogate(text.charCodeAt(end))) end--;
  return `${start > 0 ? '…' : ''}${text.slice(start, end)}${end < text.length ? '…' : ''}`;
}

const isLowSurrogate = (unit: number): boolean => unit >= 0xdc00 && unit <= 0xdfff;
