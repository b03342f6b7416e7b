/**
 * The runtime event record (docs/contract.md "Runtime event record"): what every input format is
 * mapped onto before correlation, and the type identifiers the `type` filter uses.
 */
import type { tags } from 'typia';
import type { Count } from '../shared/schema/wire-types.js';

/**
 * Type identifiers: the contract's list, then the types provd adds for evidence real producers carry
 * (src/ingest/producer-formats.md). Append only: a type's position is its stored code (codes.ts).
 */
export const eventTypes = [
  'execve',
  'process_exit',
  'file_open',
  'file_write',
  'file_rename',
  'file_unlink',
  'secret_path',
  'network_connect',
  'metadata_ip',
  'private_cidr',
  'dns_query',
  'setuid',
  'setgid',
  'ptrace',
  'tls_write',
  'tls_read',
  // provd's additions
  'file_read',
  'network_listen',
  'network_accept',
  'credential_change',
  'namespace_change',
  'module_load',
  'capture_loss',
  'generic',
] as const;

export type EventType = (typeof eventTypes)[number];

/** Where an event came from. */
export const eventSources = ['provd_sensor', 'tetragon', 'falco', 'native_jsonl', 'http'] as const;

export type EventSource = (typeof eventSources)[number];

/** Input formats of POST /v1/telemetry/ingest; `auto` detects per line. */
export const ingestFormats = ['native', 'tetragon', 'falco', 'auto'] as const;

export type IngestFormat = (typeof ingestFormats)[number];

/**
 * One event as a parser produces it: system-side facts only. Run, tool call and binding come later,
 * from correlation; a raw line that tries to carry them is rejected. Its facts are declared in
 * event-fields.ts, which says how each is stored and hashed.
 */
export interface ParsedEvent {
  type: EventType;
  source: EventSource;
  /** Capture time exactly as received (RFC 3339). */
  time: string;
  /** The capture instant, Unix nanoseconds. */
  timeNs: bigint;
  pid: number | null;
  tgid: number | null;
  ppid: number | null;
  uid: number | null;
  /** The audit login uid (who logged in; unset, 4294967295, is null). */
  loginUid: number | null;
  comm: string | null;
  /** cgroup v2 id (a u64, kept as a decimal string) or a cgroup path/name as the source gives it. */
  cgroupId: string | null;
  containerId: string | null;
  /** Type-specific attributes: path, flags, argv, dst_ip, dst_port, query, bytes, http, ... */
  attrs: Record<string, unknown>;
}

/** The audit login uid of a process no login started ((uid_t)-1, AUDIT_UID_UNSET): kept as null. */
export const unsetLoginUid = 4294967295;

/** The identity fields of an event that names no process (a producer's report about itself). */
export const noProcessIdentity = {
  pid: null,
  tgid: null,
  ppid: null,
  uid: null,
  loginUid: null,
  comm: null,
  cgroupId: null,
  containerId: null,
} as const;

/** Why a line was rejected; every rejection is counted as `invalid`. */
export const rejectionCodes = [
  'invalid_utf8',
  'invalid_unicode',
  'line_too_long',
  'invalid_json',
  'not_an_object',
  'unknown_format',
  'unknown_type',
  'missing_field',
  'wrong_type',
  'invalid_time',
  'context_not_allowed',
] as const;

export type RejectionCode = (typeof rejectionCodes)[number];

/** Rejected lines counted by code; a code no line got is absent. */
export type CountsByRejection = { [code in RejectionCode]?: Count };

/** One rejected line: its 1-based number in the body, a code, and a message naming the field. */
export interface LineError {
  line: Count & tags.Minimum<1>;
  code: RejectionCode;
  message: string;
}

/** Longest accepted line, in bytes (without the newline). */
export const maxLineBytes = 1024 * 1024;
