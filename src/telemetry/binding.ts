/**
 * The Binding record (a ToolCallScope tied to system-side keys) and the validation of a
 * POST /v1/telemetry/bind body (docs/contract.md "Writes"). A Binding is plain data: it is
 * structured-cloned to every normalize worker, whose BindingIndex correlates events against it.
 */
import { randomId } from '../shared/random-id.js';
import { isWellFormedText } from '../shared/well-formed.js';
import type { tags } from 'typia';
import type { FieldFailure } from '../shared/schema/schema-contract.js';
import type { DateTimeText, IntegerIn } from '../shared/schema/wire-types.js';
import { bindRequest, systemKeys } from './bind-request.js';
import type { BindingTier } from '../model/codes.js';
import { parseRfc3339 } from '../shared/rfc3339.js';

/** Who asserted a binding, most trusted first; `ai_asserted` is what the AI write tools force. */
export const bindingSources = ['control_plane', 'k8s_cgroup', 'harness', 'ai_asserted'] as const;

export type BindingSource = (typeof bindingSources)[number];

/** Confidence of a binding whose body gives none, by source (contract: binding confidence defaults). */
export const sourceDefaultConfidence: Readonly<Record<BindingSource, number>> = {
  control_plane: 1.0,
  k8s_cgroup: 0.8,
  harness: 1.0,
  ai_asserted: 0.5,
};

/** Confidence of each correlation tier, in the order tiers are tried (contract: correlation tiers). */
export const tierConfidence: Readonly<Record<BindingTier, number>> = {
  process: 1.0,
  cgroup: 0.98,
  container: 0.92,
  pid: 0.85,
};

/** A process id as a binding names it: 1..2^31-1 (a tag needs the literal, not `2 ** 31 - 1`). */
export type Pid = IntegerIn<1, 2147483647>;

/** A binding's confidence: greater than 0, at most 1. */
export type BindingConfidence = number & tags.ExclusiveMinimum<0> & tags.Maximum<1>;

/** A binding id as newBindingId makes it. */
export type BindingId = string & tags.Pattern<'^bnd_[a-z2-7]{20}$'>;

/** A binding as answers show it: the bind body's fields as received, with defaults and an id. */
export interface BindingFields {
  binding_id: BindingId;
  run_id: string;
  tool_call_id: string;
  session_id: string | null;
  /** Compared with an event's process identity: Tetragon exec_id, else the decimal tgid (or pid). */
  process_id: string | null;
  /** As received; compared without runtime scheme, lower-cased, prefix-tolerant. */
  container_id: string | null;
  /** A cgroup v2 id as a decimal string, or a cgroup path as given. */
  cgroup_id: string | null;
  pid: Pid | null;
  root_pid: Pid | null;
  /** As received. */
  started_at: DateTimeText | null;
  /** As received; inclusive. */
  ended_at: DateTimeText | null;
  binding_source: BindingSource;
  confidence: BindingConfidence;
}

/** A ToolCallScope binding as stored and broadcast: its fields plus parsed instants. */
export interface Binding extends BindingFields {
  /** When the daemon accepted the binding, Unix ns; breaks ties between equal starts. */
  created_ns: bigint;
  /** First instant of the interval, Unix ns; null: unbounded start. */
  startNs: bigint | null;
  /** Last instant of the interval (inclusive), Unix ns; null: open-ended. */
  endNs: bigint | null;
}

/** Why a bind body was refused; the caller answers 400 invalid_argument with `message`. */
export type BindRequestError = FieldFailure;

// text fields whose unpaired surrogates the schema's pattern cannot refuse
const textFields = [
  'run_id',
  'tool_call_id',
  'session_id',
  'process_id',
  'container_id',
  'cgroup_id',
] as const;
const nanosPerSecond = 1_000_000_000n;

/** A fresh binding id: `bnd_` and 20 base32 characters (100 random bits). */
export function newBindingId(): string {
  return randomId('bnd_');
}

function fail(field: string, message: string): BindRequestError {
  return { field, message };
}

/** True when an RFC 3339 text that parsed has no fraction: the seconds field always ends at index 19. */
function isWholeSecond(text: string): boolean {
  return text.charCodeAt(19) !== 46; // '.'
}

/**
 * Validates a bind body and builds its Binding, or names the first field that is wrong. The
 * BindRequest type checks the structure (unknown fields, types, lengths, ranges); this adds what a
 * schema cannot state: unpaired surrogates, RFC 3339 instants, their order, and one system-side
 * key. A whole-second `ended_at` covers its whole second (spec: a closed interval from a
 * whole-second Kubernetes timestamp includes the reported finishing second); a fractional one is exact.
 */
export function parseBindRequest(body: unknown, nowNs: bigint): Binding | BindRequestError {
  const checked = bindRequest.check(body);
  if (!checked.ok) return checked.failure;
  const request = checked.value;
  for (const field of textFields) {
    const text = request[field];
    if (typeof text === 'string' && !isWellFormedText(text)) return fail(field, bindRequest.rule(field));
  }
  const instants: Record<'started_at' | 'ended_at', bigint | null> = { started_at: null, ended_at: null };
  for (const field of ['started_at', 'ended_at'] as const) {
    const text = request[field];
    if (text === undefined || text === null) continue;
    const ns = parseRfc3339(text);
    if (ns === undefined) return fail(field, bindRequest.rule(field));
    instants[field] = ns;
  }
  const startNs = instants.started_at;
  const endText = request.ended_at ?? null;
  let endNs = instants.ended_at;
  if (endNs !== null && endText !== null && isWholeSecond(endText)) endNs += nanosPerSecond - 1n;
  // compared on the effective end: `…T10:00:00Z` reports the whole second, so it does not precede
  // a start at 10:00:00.5
  if (startNs !== null && endNs !== null && endNs < startNs) {
    return fail('ended_at', 'ended_at must not be before started_at');
  }
  if (systemKeys.every((key) => request[key] === undefined || request[key] === null)) {
    const keys = `${systemKeys.slice(0, -1).join(', ')} or ${systemKeys[systemKeys.length - 1]}`;
    return fail(systemKeys[0], `a binding needs at least one of ${keys}`);
  }
  const source = request.binding_source ?? 'control_plane';
  const cgroupId = request.cgroup_id;
  return {
    binding_id: newBindingId(),
    run_id: request.run_id,
    tool_call_id: request.tool_call_id,
    session_id: request.session_id ?? null,
    process_id: request.process_id ?? null,
    container_id: request.container_id ?? null,
    // a numeric cgroup v2 id is kept as its decimal string, as events carry it
    cgroup_id: cgroupId === undefined || cgroupId === null ? null : String(cgroupId),
    pid: request.pid ?? null,
    root_pid: request.root_pid ?? null,
    started_at: request.started_at ?? null,
    ended_at: endText,
    binding_source: source,
    confidence: request.confidence ?? sourceDefaultConfidence[source],
    created_ns: nowNs,
    startNs,
    endNs,
  };
}

/** True when parseBindRequest refused the body. */
export function isBindRequestError(result: Binding | BindRequestError): result is BindRequestError {
  return !('binding_id' in result);
}
