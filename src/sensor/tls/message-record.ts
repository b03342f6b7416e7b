/**
 * struct tls_message (user space only, op tlsMessage): what the TLS pool made of a stream's
 * plaintext, as a record of the sensor's batches, so it reaches the store by the normalize pool's
 * path (attribution, classification, hashing) like every record the kernel sends. The record keeps
 * the identity of the call that began the message; its attrs travel as JSON.
 */
import { isUtf8 } from 'node:buffer';
import type { ParsedEvent } from '../../model/event.js';
import type { RecordView } from '../record-view.js';
import { newRecord } from '../record-writer.js';
import { RecordOp } from '../records.js';
import type { TlsDirection } from './chunks.js';
import type { HttpMessage, OpaqueData } from './http1-stream.js';

export const tlsMessage = { direction: 64, jsonSize: 68, conn: 72, json: 80 } as const;

/** A record's size is a u16: the JSON of one message fits in what is left. */
const maxJsonBytes = 0xffff - tlsMessage.json;

const directions: TlsDirection[] = ['write', 'read'];

/** The attrs of an HTTP message's event. */
export function httpAttrs(message: HttpMessage): Record<string, unknown> {
  const { head } = message;
  const text = Buffer.from(message.body);
  const utf8 = isUtf8Prefix(text, message.bodyBytes > message.body.length);
  return {
    bytes: message.messageBytes,
    protocol: `http/${head.version}`,
    http: {
      kind: head.kind,
      ...(head.kind === 'request'
        ? { method: head.method, host: head.headers['host'] ?? null, path: head.path }
        : { status: head.status, reason: head.reason, request: message.request }),
      headers: head.headers,
      body_bytes: message.bodyBytes,
      body_sha256: message.bodySha256,
      body_complete: message.bodyComplete,
      body_truncated: message.bodyBytes > message.body.length,
      body_encoding: utf8 === null ? 'base64' : 'utf8',
      body: utf8 ?? text.toString('base64'),
      ended_by: message.endedBy,
    },
  };
}

/** The attrs of a chunk of plaintext that is not HTTP/1.x. */
export function opaqueAttrs(data: OpaqueData): Record<string, unknown> {
  return { bytes: data.bytes, protocol: data.protocol, sha256: data.sha256 };
}

/** A tls_message record for one message of `direction` on connection `conn`. */
export function encodeTlsMessage(
  origin: { wallNs: bigint; identity: Uint8Array },
  direction: TlsDirection,
  conn: string,
  attrs: Record<string, unknown>,
): Uint8Array {
  let json = Buffer.from(JSON.stringify(attrs));
  if (json.length > maxJsonBytes) {
    // the kept body made it too long: the body goes, its size and hash stay
    const http = { ...(attrs['http'] as Record<string, unknown>), body: null, body_dropped: true };
    json = Buffer.from(JSON.stringify({ ...attrs, http }));
  }
  const record = newRecord(
    RecordOp.tlsMessage,
    tlsMessage.json + json.length,
    origin.wallNs,
    origin.identity,
  );
  const view = new DataView(record.buffer);
  view.setUint16(tlsMessage.direction, directions.indexOf(direction), true);
  view.setUint32(tlsMessage.jsonSize, json.length, true);
  view.setBigUint64(tlsMessage.conn, BigInt(`0x${conn}`), true);
  record.set(json.subarray(0, maxJsonBytes), tlsMessage.json);
  return record;
}

/** A tls_message record as a `tls_write` or `tls_read` event. */
export function decodeTlsMessage(record: RecordView, event: ParsedEvent): string | undefined {
  if (!record.holds(tlsMessage.json, 0)) return `TLS message of ${record.size} bytes is too short`;
  const direction = directions[record.u16(tlsMessage.direction)];
  if (direction === undefined) return `TLS message of direction ${record.u16(tlsMessage.direction)}`;
  const size = record.u32(tlsMessage.jsonSize);
  if (!record.holds(tlsMessage.json, size))
    return `TLS message says ${size} bytes of JSON, the record holds fewer`;
  let attrs: unknown;
  try {
    attrs = JSON.parse(Buffer.from(record.raw(tlsMessage.json, size)).toString('utf8'));
  } catch {
    return 'TLS message whose attrs are not JSON';
  }
  if (typeof attrs !== 'object' || attrs === null || Array.isArray(attrs))
    return 'TLS message whose attrs are not an object';
  event.type = direction === 'write' ? 'tls_write' : 'tls_read';
  event.attrs = {
    ...event.attrs,
    conn_id: record.u64(tlsMessage.conn).toString(16),
    ...(attrs as Record<string, unknown>),
  };
  return undefined;
}

/** `bytes` as text when they are UTF-8 (a cut body may end inside a character); null when they are not. */
function isUtf8Prefix(bytes: Buffer, cut: boolean): string | null {
  for (let drop = 0; drop <= (cut ? 3 : 0) && drop <= bytes.length; drop++) {
    const text = bytes.subarray(0, bytes.length - drop);
    if (isUtf8(text)) return text.toString('utf8');
  }
  return null;
}
