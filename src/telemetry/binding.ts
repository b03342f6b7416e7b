/**
 * The Binding record (a ToolCallScope tied to system-side keys) and the validation of a
 * POST /v1/telemetry/bind body (design/contract.md "Writes"). A Binding is plain data: it is
 * structured-cloned to every normalize worker, whose BindingIndex correlates events against it.
 */
import { randomBytes } from 'node:crypto';
import type { tags } from 'typia';
import type { DateTimeText, IntegerIn } from '../shared/schema/wire-types.js';
import type { CorrelationMethod } from './codes.js';
import { parseRfc3339 } from './rfc3339.js';

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
export const tierConfidence: Readonly<Record<Exclude<CorrelationMethod, 'none'>, number>> = {
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
export interface BindRequestError {
  field: string;
  message: string;
}

const bodyFields = new Set([
  'run_id',
  'tool_call_id',
  'session_id',
  'process_id',
  'container_id',
  'cgroup_id',
  'pid',
  'root_pid',
  'started_at',
  'ended_at',
  'binding_source',
  'confidence',
]);

const maxIdLength = 256;
// cgroup paths (kubepods.slice/.../cri-containerd-<64 hex>.scope) outgrow ids; PATH_MAX bounds them
const maxCgroupLength = 4096;
const maxPid = 2 ** 31 - 1;
const nanosPerSecond = 1_000_000_000n;
const base32 = 'abcdefghijklmnopqrstuvwxyz234567';

/** A fresh binding id: `bnd_` and 20 base32 characters (100 random bits). */
export function newBindingId(): string {
  const bytes = randomBytes(20);
  let id = 'bnd_';
  // 256 is a multiple of 32, so the low five bits of a uniform byte are uniform
  for (const byte of bytes) id += base32[byte & 31];
  return id;
}

/**
 * True for a string of 1..max UTF-16 units without C0/C1 control characters or unpaired
 * surrogates: ids end up in logs, SQL rows and JSON answers, where those corrupt or spoof output.
 */
function isCleanText(value: string, max: number): boolean {
  if (value.length === 0 || value.length > max) return false;
  for (let i = 0; i < value.length; i++) {
    const c = value.charCodeAt(i);
    if (c < 0x20 || (c >= 0x7f && c <= 0x9f)) return false;
    if (c >= 0xd800 && c <= 0xdbff) {
      const next = value.charCodeAt(i + 1);
      if (!(next >= 0xdc00 && next <= 0xdfff)) return false;
      i++;
    } else if (c >= 0xdc00 && c <= 0xdfff) {
      return false;
    }
  }
  return true;
}

function fail(field: string, message: string): BindRequestError {
  return { field, message };
}

function textRule(field: string, max: number): BindRequestError {
  return fail(field, `${field} must be a string of 1..${max} characters without control characters`);
}

function pidRule(field: string): BindRequestError {
  return fail(field, `${field} must be an integer in 1..${maxPid}`);
}

function timeRule(field: string): BindRequestError {
  return fail(field, `${field} must be an RFC 3339 date-time, e.g. 2025-01-02T03:04:05Z`);
}

/** Names unknown keys safely: truncated and JSON-quoted, so a hostile key cannot forge the message. */
function unknownFields(keys: string[]): BindRequestError {
  const shown = keys.slice(0, 5).map((key) => JSON.stringify(key.slice(0, 64)));
  const more = keys.length > 5 ? ` and ${keys.length - 5} more` : '';
  const noun = keys.length === 1 ? 'field' : 'fields';
  return fail(keys[0]!.slice(0, 64), `unknown ${noun} ${shown.join(', ')}${more} in the bind body`);
}

/** True when an RFC 3339 text that parsed has no fraction: the seconds field always ends at index 19. */
function isWholeSecond(text: string): boolean {
  return text.charCodeAt(19) !== 46; // '.'
}

/**
 * Validates a bind body and builds its Binding, or names the first field that is wrong. Unknown
 * fields are refused; `null` counts as absent for optional fields. A whole-second `ended_at` covers
 * its whole second (spec: a closed interval from a whole-second Kubernetes timestamp includes the
 * reported finishing second); a fractional one is exact.
 */
export function parseBindRequest(body: unknown, nowNs: bigint): Binding | BindRequestError {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) {
    return fail('body', 'the bind body must be a JSON object');
  }
  const record = body as Record<string, unknown>;
  // own keys only: a value inherited from Object.prototype is never read as a field
  const keys = Object.keys(record);
  const unknown = keys.filter((key) => !bodyFields.has(key));
  if (unknown.length > 0) return unknownFields(unknown);
  const value = (key: string): unknown => (Object.hasOwn(record, key) ? record[key] : undefined);

  const runId = value('run_id');
  if (runId === undefined || runId === null) return fail('run_id', 'run_id is required');
  if (typeof runId !== 'string' || !isCleanText(runId, maxIdLength)) return textRule('run_id', maxIdLength);
  const toolCallId = value('tool_call_id');
  if (toolCallId === undefined || toolCallId === null)
    return fail('tool_call_id', 'tool_call_id is required');
  if (typeof toolCallId !== 'string' || !isCleanText(toolCallId, maxIdLength)) {
    return textRule('tool_call_id', maxIdLength);
  }

  const ids: Record<'session_id' | 'process_id' | 'container_id', string | null> = {
    session_id: null,
    process_id: null,
    container_id: null,
  };
  for (const field of ['session_id', 'process_id', 'container_id'] as const) {
    const text = value(field);
    if (text === undefined || text === null) continue;
    if (typeof text !== 'string' || !isCleanText(text, maxIdLength)) return textRule(field, maxIdLength);
    ids[field] = text;
  }

  let cgroupId: string | null = null;
  const cgroup = value('cgroup_id');
  if (typeof cgroup === 'number') {
    // a cgroup v2 id is a u64: as a JSON number it is exact only below 2^53
    if (!Number.isSafeInteger(cgroup) || cgroup < 0) {
      return fail('cgroup_id', 'cgroup_id must be a string, or a non-negative integer below 2^53');
    }
    cgroupId = String(cgroup);
  } else if (cgroup !== undefined && cgroup !== null) {
    if (typeof cgroup !== 'string' || !isCleanText(cgroup, maxCgroupLength)) {
      return fail(
        'cgroup_id',
        `cgroup_id must be a non-negative integer or a string of 1..${maxCgroupLength} characters`,
      );
    }
    cgroupId = cgroup;
  }

  const pids: Record<'pid' | 'root_pid', number | null> = { pid: null, root_pid: null };
  for (const field of ['pid', 'root_pid'] as const) {
    const pid = value(field);
    if (pid === undefined || pid === null) continue;
    if (typeof pid !== 'number' || !Number.isInteger(pid) || pid < 1 || pid > maxPid) return pidRule(field);
    pids[field] = pid;
  }

  const times: Record<'started_at' | 'ended_at', { text: string; ns: bigint } | null> = {
    started_at: null,
    ended_at: null,
  };
  for (const field of ['started_at', 'ended_at'] as const) {
    const text = value(field);
    if (text === undefined || text === null) continue;
    if (typeof text !== 'string') return timeRule(field);
    const ns = parseRfc3339(text);
    if (ns === undefined) return timeRule(field);
    times[field] = { text, ns };
  }
  const startNs = times.started_at?.ns ?? null;
  let endNs: bigint | null = null;
  if (times.ended_at !== null) {
    const { text, ns } = times.ended_at;
    endNs = isWholeSecond(text) ? ns + nanosPerSecond - 1n : ns;
  }
  // compared on the effective end: `…T10:00:00Z` reports the whole second, so it does not precede
  // a start at 10:00:00.5
  if (startNs !== null && endNs !== null && endNs < startNs) {
    return fail('ended_at', 'ended_at must not be before started_at');
  }

  let source: BindingSource = 'control_plane';
  const sourceValue = value('binding_source');
  if (sourceValue !== undefined && sourceValue !== null) {
    if (typeof sourceValue !== 'string' || !(bindingSources as readonly string[]).includes(sourceValue)) {
      return fail('binding_source', `binding_source must be one of ${bindingSources.join(', ')}`);
    }
    source = sourceValue as BindingSource;
  }

  let confidence = sourceDefaultConfidence[source];
  const confidenceValue = value('confidence');
  if (confidenceValue !== undefined && confidenceValue !== null) {
    if (typeof confidenceValue !== 'number' || !(confidenceValue > 0 && confidenceValue <= 1)) {
      return fail('confidence', 'confidence must be a number greater than 0 and at most 1');
    }
    confidence = confidenceValue;
  }

  if (
    ids.process_id === null &&
    ids.container_id === null &&
    cgroupId === null &&
    pids.pid === null &&
    pids.root_pid === null
  ) {
    return fail(
      'process_id',
      'a binding needs at least one of process_id, container_id, cgroup_id, pid or root_pid',
    );
  }

  return {
    binding_id: newBindingId(),
    run_id: runId,
    tool_call_id: toolCallId,
    session_id: ids.session_id,
    process_id: ids.process_id,
    container_id: ids.container_id,
    cgroup_id: cgroupId,
    pid: pids.pid,
    root_pid: pids.root_pid,
    started_at: times.started_at?.text ?? null,
    ended_at: times.ended_at?.text ?? null,
    binding_source: source,
    confidence,
    created_ns: nowNs,
    startNs,
    endNs,
  };
}

/** True when parseBindRequest refused the body. */
export function isBindRequestError(result: Binding | BindRequestError): result is BindRequestError {
  return !('binding_id' in result);
}
