/**
 * SHA-256 over a whole slice of events at once: their content hashes, and the Merkle roots over
 * them (merkle.ts's tree), in one call each. The native addon (native/hash, OpenSSL as Node
 * exports it) does it when .ci/setup built it; otherwise the same functions run here in
 * JavaScript, byte for byte the same (test/provenance/batch-hash.test.ts holds both to that).
 * Measured on the ingest workload: a call per event into node:crypto cost ~0.6 µs of it.
 */
import { hash } from 'node:crypto';
import { loadHashAddon } from './hash-addon.js';

/** The columns of a slice's rows that its events' canonical contents do not hold (native/hash/rows.h). */
export interface RowColumns {
  type: Uint8Array;
  source: Uint8Array;
  timeNs: BigInt64Array;
  /** rowFlags of src/telemetry/event-row.ts */
  flags: Uint8Array;
  bytes: Float64Array;
  /** Each row's index into `correlations`. */
  correlation: Uint32Array;
  /** A row's correlation columns with its newline (event-row.ts: correlationFields). */
  correlations: string[];
}

/** What native/hash/hash.cc exports. */
interface HashAddon {
  sha256Lines(input: Uint8Array): Buffer;
  merkleRoots(digests: Uint8Array, groups: Uint32Array, groupCount: number): Buffer;
  writeRows(
    path: string,
    contents: Uint8Array,
    type: Uint8Array,
    source: Uint8Array,
    timeNs: BigInt64Array,
    flags: Uint8Array,
    bytes: Float64Array,
    correlation: Uint32Array,
    correlations: string[],
  ): Buffer;
  nativeContents(
    slice: Uint8Array,
    lines: Uint32Array,
    types: Uint8Array,
    observed: Uint8Array,
    typeNames: readonly string[],
    fallback: Uint8Array,
    skipBom: boolean,
  ): NativeContents;
  limitMallocArenas(max: number): boolean;
  mallocArenas(): number | null;
}

/** What nativeContents answers for a slice. */
export interface NativeContents {
  /** The events' canonical contents, '\n'-terminated in order; null when some were refused. */
  contents: Buffer | null;
  /** Per event built from its line, the UTF-16 length of its attrs JSON (0 for fallback ones). */
  attrsLength: Uint32Array;
  /** The events whose lines could not be written exactly here: JavaScript writes their contents. */
  refused: Uint32Array;
}

// PROVD_NO_NATIVE_HASH=1: the JavaScript functions answer even where the addon is built
const addon = process.env['PROVD_NO_NATIVE_HASH'] === '1' ? null : (loadHashAddon() as HashAddon | null);

/**
 * Caps glibc's malloc arenas for the whole process (native/hash/malloc-arenas.cc says why); false
 * without the addon, or off glibc.
 */
export function limitMallocArenas(max: number): boolean {
  return addon?.limitMallocArenas(max) ?? false;
}

/** How many malloc arenas glibc has made in this process; null without the addon, or off glibc. */
export function mallocArenas(): number | null {
  return addon?.mallocArenas() ?? null;
}

/** Which implementation hashes here: `native` (the addon) or `js`. */
export const batchHashing: 'native' | 'js' = addon === null ? 'js' : 'native';

const digestBytes = 32;
const nodePrefix = Buffer.from([1]);

/** SHA-256 of each '\n'-terminated line of `input` (without the newline), 32 bytes per line, in order. */
export function sha256Lines(input: Uint8Array): Buffer {
  return addon === null ? sha256LinesJs(input) : addon.sha256Lines(input);
}

/**
 * One Merkle root per group, 32 bytes each by group number: the leaves of group g are the digests
 * (32 bytes each) whose `groups` entry is g, in order; interior nodes are sha256(0x01 || left ||
 * right), an odd node is carried up, and a group without leaves hashes the empty string.
 */
export function merkleRoots(digests: Uint8Array, groups: Uint32Array, groupCount: number): Buffer {
  return addon === null
    ? merkleRootsJs(digests, groups, groupCount)
    : addon.merkleRoots(digests, groups, groupCount);
}

/**
 * The native row writer, or null without the addon: writes the rows file of a slice at `path` from
 * its events' canonical contents ('\n'-terminated, in `contents`) and `columns`, as encodeEventRow
 * writes each row, and returns their content hashes, 32 bytes each.
 */
export const writeRowsNative =
  addon === null
    ? null
    : (path: string, contents: Uint8Array, columns: RowColumns): Buffer =>
        addon.writeRows(
          path,
          contents,
          columns.type,
          columns.source,
          columns.timeNs,
          columns.flags,
          columns.bytes,
          columns.correlation,
          columns.correlations,
        );

/**
 * The native content builder, or null without the addon: builds the canonical contents of a slice's
 * events, each from its native-format line (`lines[i]`, 1-based in `slice`) with its type after
 * classification (`types[i]`, a code into `typeNames`) and the parser's type when classification
 * changed it (`observed[i]`, code + 1, or 0), or, where `lines[i]` is 0, from `fallback` (the
 * JavaScript-built contents of those events, in order, '\n'-terminated). native/hash/native-content.cc
 * must write what event-hash.ts: canonicalContent writes (test/provenance/native-contents.test.ts).
 */
export const nativeContents = addon === null ? null : addon.nativeContents.bind(addon);

export function sha256LinesJs(input: Uint8Array): Buffer {
  const bytes = Buffer.from(input.buffer, input.byteOffset, input.byteLength);
  const digests: Buffer[] = [];
  for (let start = 0, end = bytes.indexOf(10); end !== -1; start = end + 1, end = bytes.indexOf(10, start))
    digests.push(hash('sha256', bytes.subarray(start, end), 'buffer'));
  return Buffer.concat(digests, digests.length * digestBytes);
}

export function merkleRootsJs(digests: Uint8Array, groups: Uint32Array, groupCount: number): Buffer {
  if (digests.byteLength !== groups.length * digestBytes)
    throw new RangeError('failed to build Merkle roots: one group per 32-byte digest');
  const leaves: Buffer[][] = Array.from({ length: groupCount }, () => []);
  const bytes = Buffer.from(digests.buffer, digests.byteOffset, digests.byteLength);
  groups.forEach((group, i) => {
    const leaf = leaves[group];
    if (leaf === undefined)
      throw new RangeError('failed to build Merkle roots: a group number past groupCount');
    leaf.push(bytes.subarray(i * digestBytes, (i + 1) * digestBytes));
  });
  return Buffer.concat(leaves.map(rootOf), groupCount * digestBytes);
}

function rootOf(leaves: Buffer[]): Buffer {
  if (leaves.length === 0) return hash('sha256', '', 'buffer');
  let level = leaves;
  while (level.length > 1) {
    const next: Buffer[] = [];
    for (let i = 0; i < level.length; i += 2) {
      const right = level[i + 1];
      next.push(
        right === undefined
          ? level[i]!
          : hash('sha256', Buffer.concat([nodePrefix, level[i]!, right]), 'buffer'),
      );
    }
    level = next;
  }
  return level[0]!;
}
