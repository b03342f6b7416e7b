/**
 * The raw record layout of the sensor's ring buffers: must match bpf/lib/event.h. Each struct is
 * named and its fields spelled as in C, so test/sensor/struct-drift.test.ts can compare every one
 * of them with the BTF of the BPF objects.
 */

/** What a record holds: must match bpf/lib/event.h: enum record_op. */
export const RecordOp = {
  exec: 1,
  exit: 2,
  fileOpen: 3,
  fileRename: 4,
  fileUnlink: 5,
  connect: 6,
  dns: 7,
  setuid: 8,
  setgid: 9,
  ptrace: 10,
  /** TLS plaintext: goes to the TLS pool (src/sensor/tls/), never straight to the normalize pool. */
  tlsChunk: 11,
  /** Written by the ring reader when it folds (src/sensor/folded-records.ts), never by BPF. */
  repeat: 102,
  libraries: 103,
  locale: 104,
  /** Written by src/sensor/loss-records.ts, never by BPF. */
  lossReport: 100,
  /** Written by the TLS pool (src/sensor/tls/message-record.ts): one reassembled HTTP message. */
  tlsMessage: 101,
} as const;

/** header.flags: a bounded field (path, argv, payload) was cut. */
export const recordTruncated = 1;
/** header.flags: the directory of a relative path could not be read whole. */
export const recordBaseCut = 2;
/** header.flags: a path could not be read from the caller's memory. */
export const recordUnreadable = 4;

/** Bytes of the fixed fields: PATH_MAX_BYTES, ARGV_MAX_BYTES, DNS_MAX_BYTES. */
export const pathBytes = 256;
export const argvBytes = 1024;
export const dnsBytes = 256;
/** BASE_BYTES: a relative path's directory, its components leaf first, each NUL-terminated. */
export const baseBytes = 256;
export const commBytes = 16;
/** TLS_CHUNK_BYTES: the most plaintext one chunk record holds. */
export const tlsChunkBytes = 16384;
/** TLS_CHUNKS_PER_CALL: the most chunks one call is sent in; past them, a call's plaintext is cut. */
export const tlsChunksPerCall = 4;

/** A C struct: its size and the byte offset of each field. */
export interface StructLayout {
  size: number;
  fields: Record<string, number>;
}

const headerFields = {
  op: 0,
  size: 2,
  flags: 4,
  ktime_ns: 8,
  cgroup_id: 16,
  tid: 24,
  tgid: 28,
  ppid: 32,
  uid: 36,
  gid: 40,
  reserved: 44,
  comm: 48,
} as const;

export const layouts = {
  event_header: { size: 64, fields: headerFields },
  exec_event: {
    size: 1616,
    fields: {
      header: 0,
      filename_size: 64,
      argv_size: 68,
      base_size: 72,
      reserved: 76,
      filename: 80,
      base: 336,
      argv: 592,
    },
  },
  exit_event: { size: 72, fields: { header: 0, exit_code: 64, signal: 68 } },
  file_open_event: {
    size: 600,
    fields: {
      header: 0,
      result: 64,
      flags: 68,
      mode: 72,
      path_size: 76,
      base_size: 80,
      reserved: 84,
      base: 88,
      path: 344,
    },
  },
  file_rename_event: {
    size: 1112,
    fields: {
      header: 0,
      result: 64,
      flags: 68,
      old_size: 72,
      new_size: 76,
      old_base_size: 80,
      new_base_size: 84,
      old_base: 88,
      new_base: 344,
      old_path: 600,
      new_path: 856,
    },
  },
  file_unlink_event: {
    size: 592,
    fields: { header: 0, result: 64, flags: 68, path_size: 72, base_size: 76, base: 80, path: 336 },
  },
  connect_event: { size: 88, fields: { header: 0, result: 64, family: 68, port: 70, addr: 72 } },
  dns_event: {
    size: 352,
    fields: {
      header: 0,
      family: 64,
      port: 66,
      payload_size: 68,
      query_size: 72,
      reserved: 76,
      addr: 80,
      payload: 96,
    },
  },
  setid_event: { size: 72, fields: { header: 0, result: 64, target: 68 } },
  ptrace_event: { size: 80, fields: { header: 0, result: 64, target_pid: 68, request: 72 } },
  tls_chunk_event: {
    size: 16480,
    fields: {
      header: 0,
      conn: 64,
      call_size: 72,
      offset: 76,
      data_size: 80,
      direction: 84,
      unreadable: 86,
      seq: 88,
      data: 96,
    },
  },
  loss_counts: { size: 32, fields: { ring_full: 0, truncated: 8, pending_full: 16, filtered: 24 } },
} as const satisfies Record<string, StructLayout>;

/** The header's field offsets (struct event_header). */
export const header = layouts.event_header.fields;
export const headerBytes = layouts.event_header.size;

/** A batch from native/src/ring-reader.cc: an int64 clock offset, then records padded to 8 bytes. */
export const batchHeaderBytes = 8;
