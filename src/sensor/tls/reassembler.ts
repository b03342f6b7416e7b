/**
 * The TLS pool's state (one thread, so every stream lives in one place): chunks of plaintext in,
 * per (process, connection, direction) stream, out as tls_message records and loss reports, in a
 * batch the normalize pool reads like any other. Streams and the bytes they hold are bounded: what
 * a bound, or a stream left idle mid-message, costs is counted and reported, never dropped silently.
 */
import { lossRecord, type LossKind } from '../loss-records.js';
import { joinRecords } from '../record-writer.js';
import { readChunks, type TlsDirection } from './chunks.js';
import { Http1Stream, type RequestLine, type RequestQueue, type StreamOutput } from './http1-stream.js';
import { encodeTlsMessage, httpAttrs, opaqueAttrs } from './message-record.js';

export interface TlsBounds {
  /** Streams held at once; past it the least recently fed is evicted. */
  maxStreams: number;
  /** Bytes all streams hold at once (incomplete heads, kept bodies); past it streams are evicted, least recently fed first. */
  maxPendingBytes: number;
  /** A stream not fed this long ends: its body, if it runs to the connection's end, is complete. */
  idleNs: bigint;
  maxHeadBytes: number;
  maxBodyBytes: number;
  /** Requests a connection holds unanswered; past it the oldest is forgotten (its response then names none). */
  maxQueuedRequests: number;
}

export const defaultTlsBounds: TlsBounds = {
  maxStreams: 1024,
  maxPendingBytes: 32 * 1024 * 1024,
  idleNs: 30_000_000_000n,
  maxHeadBytes: 64 * 1024,
  maxBodyBytes: 16 * 1024,
  maxQueuedRequests: 64,
};

/** What the pool did since it started: health reads it. */
export interface TlsStats {
  chunks: number;
  messages: number;
  opaque: number;
  streams: number;
  pendingBytes: number;
  evicted: number;
  /** Messages whose plaintext was not all captured (the kernel ring dropped chunks of it). */
  uncaptured: number;
  /** Plaintext that is not HTTP/1.x or HTTP/2: captured, not read, and no loss. */
  unparsed: number;
  malformed: number;
}

interface Held {
  stream: Http1Stream;
  connection: string;
  direction: TlsDirection;
  conn: string;
}

export class TlsReassembler {
  /** Least recently fed first. */
  private readonly streams = new Map<string, Held>();
  /** Per connection: its requests not answered yet, its streams held, and whether it speaks HTTP/2. */
  private readonly requests = new Map<string, { queue: RequestLine[]; streams: number; http2: boolean }>();
  private readonly counts: TlsStats = {
    chunks: 0,
    messages: 0,
    opaque: 0,
    streams: 0,
    pendingBytes: 0,
    evicted: 0,
    uncaptured: 0,
    unparsed: 0,
    malformed: 0,
  };

  constructor(private readonly bounds: TlsBounds = defaultTlsBounds) {}

  /** Reads a batch of chunk records; returns the batch of what it completed, lost or could not read. */
  take(batch: Uint8Array, nowNs: bigint): Uint8Array {
    const records: Uint8Array[] = [];
    const { chunks, malformed } = readChunks(batch);
    this.counts.malformed += malformed;
    if (malformed > 0) records.push(lossRecord({ kind: 'malformed', probe: 'tls', count: malformed }, nowNs));
    for (const chunk of chunks) {
      this.counts.chunks++;
      const held = this.streams.get(chunk.stream) ?? this.open(chunk.connection, chunk.direction, chunk.conn);
      this.streams.delete(chunk.stream); // to the end: most recently fed
      this.streams.set(chunk.stream, held);
      const out: StreamOutput[] = [];
      const connection = this.requests.get(held.connection)!;
      if (connection.http2) held.stream.joinHttp2();
      held.stream.feed(chunk, out);
      if (held.stream.http2) connection.http2 = true;
      this.emit(held, out, records, nowNs);
    }
    this.enforceBounds(records, nowNs);
    this.expire(nowNs, records);
    return joinRecords(records);
  }

  /** Ends streams idle past the bound (or every stream, when the sensor stops); returns what that gave. */
  flush(nowNs: bigint, all: boolean): Uint8Array {
    const records: Uint8Array[] = [];
    if (all)
      for (const key of [...this.streams.keys()]) this.close(key, 'the sensor stopped', records, nowNs);
    else this.expire(nowNs, records);
    return joinRecords(records);
  }

  stats(): TlsStats {
    let pendingBytes = 0;
    for (const { stream } of this.streams.values()) pendingBytes += stream.pendingBytes;
    return { ...this.counts, streams: this.streams.size, pendingBytes };
  }

  private open(connection: string, direction: TlsDirection, conn: string): Held {
    let requests = this.requests.get(connection);
    if (requests === undefined)
      this.requests.set(connection, (requests = { queue: [], streams: 0, http2: false }));
    requests.streams++;
    const { queue } = requests;
    const max = this.bounds.maxQueuedRequests;
    const pairing: RequestQueue = {
      push: (request) => {
        if (queue.push(request) > max) queue.shift();
      },
      shift: () => queue.shift(),
    };
    return { stream: new Http1Stream(this.bounds, pairing), connection, direction, conn };
  }

  private close(key: string, why: string, records: Uint8Array[], nowNs: bigint): void {
    const held = this.streams.get(key);
    if (held === undefined) return;
    const out: StreamOutput[] = [];
    held.stream.end(why, out);
    this.emit(held, out, records, nowNs);
    this.streams.delete(key);
    const requests = this.requests.get(held.connection);
    if (requests !== undefined && --requests.streams === 0) this.requests.delete(held.connection);
  }

  private enforceBounds(records: Uint8Array[], nowNs: bigint): void {
    let pending = this.stats().pendingBytes;
    for (const [key, held] of this.streams) {
      if (this.streams.size <= this.bounds.maxStreams && pending <= this.bounds.maxPendingBytes) return;
      pending -= held.stream.pendingBytes;
      this.close(key, 'evicted: the TLS pool held too many streams or bytes', records, nowNs);
    }
  }

  private expire(nowNs: bigint, records: Uint8Array[]): void {
    for (const [key, held] of this.streams) {
      if (nowNs - held.stream.lastFedNs < this.bounds.idleNs) return; // the rest were fed later
      this.close(key, 'idle: no plaintext came for the rest of the message', records, nowNs);
    }
  }

  private emit(held: Held, out: StreamOutput[], records: Uint8Array[], nowNs: bigint): void {
    for (const item of out) {
      if ('message' in item) {
        this.counts.messages++;
        records.push(encodeTlsMessage(item.message, held.direction, held.conn, httpAttrs(item.message)));
      } else if ('opaque' in item) {
        this.counts.opaque++;
        records.push(encodeTlsMessage(item.opaque, held.direction, held.conn, opaqueAttrs(item.opaque)));
      } else {
        const kind: LossKind = item.lost;
        if (kind === 'tls_evicted') this.counts.evicted++;
        else if (kind === 'tls_uncaptured') this.counts.uncaptured++;
        else this.counts.unparsed++;
        const probe = held.direction === 'write' ? 'tls_write' : 'tls_read';
        records.push(lossRecord({ kind, probe, count: 1, detail: item.why }, nowNs));
      }
    }
  }
}
