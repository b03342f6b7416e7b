import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { decodeSensorBatch } from '../../src/sensor/decode-records.js';
import { defaultTlsBounds, TlsReassembler, type TlsBounds } from '../../src/sensor/tls/reassembler.js';
import type { ParsedEvent } from '../../src/model/event.js';
import { notLossCounts, reportedGap } from '../../src/telemetry/reported-gap.js';
import { chunkBatch, type ChunkSpec } from '../support/tls-chunks.js';

const t0 = 1_790_000_000_000_000_000n;
const sha256 = (text: string): string => createHash('sha256').update(text).digest('hex');

/** The events a reassembler makes of `specs`, fed one batch each (a stream crossing batches). */
function reassemble(
  specs: ChunkSpec[],
  bounds: Partial<TlsBounds> = {},
  reassembler?: TlsReassembler,
): ParsedEvent[] {
  const pool = reassembler ?? new TlsReassembler({ ...defaultTlsBounds, ...bounds });
  const events: ParsedEvent[] = [];
  for (const spec of specs) {
    const { events: made, errors } = decodeSensorBatch(pool.take(chunkBatch([spec]), spec.timeNs ?? t0));
    assert.deepEqual(errors, []);
    events.push(...made);
  }
  return events;
}

const http = (event: ParsedEvent | undefined): Record<string, unknown> =>
  (event?.attrs['http'] ?? {}) as Record<string, unknown>;

/** Cuts `text` into pieces of `size` bytes, each a call of its own. */
function pieces(text: string, size: number, spec: Partial<ChunkSpec> = {}): ChunkSpec[] {
  const out: ChunkSpec[] = [];
  for (let at = 0; at < text.length; at += size) out.push({ ...spec, data: text.slice(at, at + size) });
  return out;
}

describe('TLS reassembly into HTTP/1.x messages', function () {
  it('reads a recorded capture of curl, node and a Python server into requests and responses', function () {
    const batch = new Uint8Array(
      readFileSync(new URL('../../../test/fixtures/sensor/tls.bin', import.meta.url)),
    );
    const reassembler = new TlsReassembler();
    const { events, errors } = decodeSensorBatch(reassembler.take(batch, t0));
    assert.deepEqual(errors, []);
    const summary = events.map((event) => {
      const message = http(event);
      return [event.type, event.comm, message['method'] ?? message['status'], message['path'] ?? null];
    });
    assert.deepEqual(summary, [
      ['tls_write', 'curl', 'POST', '/v1/messages'],
      ['tls_read', 'python3', 'POST', '/v1/messages'],
      ['tls_write', 'python3', 200, null],
      ['tls_read', 'curl', 200, null],
      ['tls_write', 'curl', 'GET', '/chunked'],
      ['tls_read', 'python3', 'GET', '/chunked'],
      ['tls_write', 'python3', 200, null],
      ['tls_read', 'curl', 200, null],
      ['tls_write', 'curl', 'GET', '/big?n=100000'],
      ['tls_read', 'python3', 'GET', '/big?n=100000'],
      ['tls_write', 'python3', 200, null],
      ['tls_read', 'curl', 200, null],
      ['tls_write', 'node', 'POST', '/v1/messages'],
      ['tls_read', 'python3', 'POST', '/v1/messages'],
      ['tls_write', 'python3', 200, null],
      ['tls_read', 'node', 200, null],
    ]);
    const usage = '{"id":"msg_1","usage":{"input_tokens":12,"output_tokens":34}}';
    assert.deepEqual(http(events[3]), {
      ...http(events[3]),
      request: { method: 'POST', path: '/v1/messages', host: http(events[0])['host'] },
      body: usage,
      body_bytes: usage.length,
      body_sha256: sha256(usage),
      body_complete: true,
      ended_by: 'length',
    });
    assert.equal(
      'authorization' in (http(events[0])['headers'] as object),
      false,
      'credentials are never kept',
    );
    assert.deepEqual(
      [http(events[7])['body'], http(events[7])['ended_by']],
      ['first,second,third', 'chunked'],
    );
    // the server wrote 100,000 bytes in one call: past 64 KiB the kernel side cut it, flagged
    assert.deepEqual(
      [http(events[10])['body_bytes'], http(events[10])['body_complete'], http(events[10])['body_sha256']],
      [100_000, false, null],
    );
    // curl read them in calls of 16 KiB: every byte was captured, so the hash covers the whole body
    assert.deepEqual(
      [http(events[11])['body_bytes'], http(events[11])['body_complete'], http(events[11])['body_sha256']],
      [100_000, true, sha256('x'.repeat(100_000))],
    );
    assert.equal((http(events[11])['body'] as string).length, defaultTlsBounds.maxBodyBytes);
    assert.equal(http(events[11])['body_truncated'], true);
    assert.deepEqual(reassembler.stats(), {
      ...reassembler.stats(),
      chunks: 39,
      messages: 16,
      evicted: 0,
      unparsed: 0,
    });
  });

  it('reads a head that comes a byte at a time, and two pipelined requests in one call', function () {
    const request = 'GET /a HTTP/1.1\r\nHost: api.example\r\n\r\n';
    const split = reassemble(pieces(request, 1));
    assert.deepEqual(
      split.map((event) => [http(event)['path'], http(event)['host']]),
      [['/a', 'api.example']],
    );
    const pipelined = reassemble([{ data: request + request.replace('/a', '/b') }]);
    assert.deepEqual(
      pipelined.map((event) => http(event)['path']),
      ['/a', '/b'],
    );
  });

  it('decodes a chunked body split anywhere, with chunk extensions and a trailer', function () {
    const response =
      'HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n4;ext=1\r\nWiki\r\n5\r\npedia\r\n0\r\nX-Trailer: 1\r\n\r\n';
    for (const size of [1, 2, 3, 7, 1000]) {
      const events = reassemble(pieces(response, size, { direction: 'read' }));
      assert.equal(events.length, 1, `pieces of ${size}`);
      assert.deepEqual(
        [events[0]!.type, http(events[0])['body'], http(events[0])['body_sha256'], events[0]!.attrs['bytes']],
        ['tls_read', 'Wikipedia', sha256('Wikipedia'), response.length],
      );
    }
  });

  it('pairs a response with its request, and reads the response to a HEAD as having no body', function () {
    const pool = new TlsReassembler();
    const events = reassemble(
      [
        { data: 'HEAD /file HTTP/1.1\r\nHost: h\r\n\r\n', direction: 'write' },
        { data: 'HTTP/1.1 200 OK\r\nContent-Length: 500\r\n\r\n', direction: 'read' },
        { data: 'GET /next HTTP/1.1\r\nHost: h\r\n\r\n', direction: 'write' },
        { data: 'HTTP/1.1 404 Not Found\r\nContent-Length: 2\r\n\r\nno', direction: 'read' },
      ],
      {},
      pool,
    );
    assert.deepEqual(
      events.map((event) => [
        event.type,
        http(event)['status'] ?? null,
        http(event)['body_bytes'],
        http(event)['request'] ?? null,
      ]),
      [
        ['tls_write', null, 0, null],
        ['tls_read', 200, 0, { method: 'HEAD', path: '/file', host: 'h' }],
        ['tls_write', null, 0, null],
        ['tls_read', 404, 2, { method: 'GET', path: '/next', host: 'h' }],
      ],
    );
  });

  it('reports what is not HTTP/1.x: HTTP/2 and an upgraded connection as opaque bytes, garbage as lost', function () {
    const h2 = reassemble([{ data: 'PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n' }, { data: '\x00\x00\x12\x04' }]);
    assert.deepEqual(
      h2.map((event) => [event.attrs['protocol'], event.attrs['bytes']]),
      [
        ['http2', 24],
        ['http2', 4],
      ],
    );
    const upgraded = reassemble([
      {
        data: 'HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\n\r\n\x81\x05hello',
        direction: 'read',
      },
    ]);
    assert.deepEqual(
      upgraded.map((event) => [event.attrs['protocol'], http(event)['status'] ?? event.attrs['bytes']]),
      [
        ['http/1.1', 101],
        ['switched', 7],
      ],
    );
    const garbage = reassemble([
      { data: 'GET / HTTP/1.1\r\nthis is no header\r\n\r\n' },
      { data: 'more of the same' },
      { data: 'GET /again HTTP/1.1\r\nHost: h\r\n\r\n' },
    ]);
    assert.deepEqual(
      garbage.map((event) => [
        event.type,
        event.attrs['loss'] ?? http(event)['path'],
        event.attrs['probe'] ?? null,
      ]),
      [
        ['capture_loss', 'sensor_tls_unparsed', 'tls_write'],
        ['tls_write', '/again', null],
      ],
    );
    assert.match(String(garbage[0]!.attrs['detail']), /not a header line/);
  });

  it('counts a body the kernel side cut, and loses a stream whose head was not captured', function () {
    // a call of 70,000 body bytes: the kernel side sent its first 64 KiB in four chunks, flagged cut
    const head = 'HTTP/1.1 200 OK\r\nContent-Length: 70000\r\n\r\n';
    const call = head + 'z'.repeat(70_000);
    const cut = reassemble(
      [0, 1, 2, 3].map((index) => ({
        data: call.slice(index * 16384, (index + 1) * 16384),
        offset: index * 16384,
        callSize: call.length,
        truncated: true,
        direction: 'read' as const,
      })),
    );
    assert.deepEqual(
      [cut.length, http(cut[0])['body_bytes'], http(cut[0])['body_complete'], http(cut[0])['body_sha256']],
      [1, 70_000, false, null],
    );
    const headLost = reassemble([{ data: '', callSize: 100, unreadable: true }]);
    assert.deepEqual(
      headLost.map((event) => [event.attrs['loss'], event.attrs['lost_events']]),
      [['sensor_tls_uncaptured', 1]],
      'plaintext the sensor could not read is lost, not unparsed',
    );
  });

  it('loses the message under way when the kernel dropped chunks of its stream, and reads the next', function () {
    const head = 'POST /x HTTP/1.1\r\nContent-Length: 30\r\n\r\n';
    const events = reassemble([
      { data: head + '0123456789', conn: 9n, seq: 10 },
      // seq 11 (the next ten bytes) never came: the ring had no room for it
      { data: '0123456789', conn: 9n, seq: 12 },
      { data: 'GET /next HTTP/1.1\r\n\r\n', conn: 9n, seq: 13 },
      // numbers that start again (the kernel side forgot the stream) are no loss
      { data: 'GET /again HTTP/1.1\r\n\r\n', conn: 9n, seq: 0 },
    ]);
    assert.deepEqual(
      events.map((event) => [event.attrs['loss'] ?? http(event)['path'], event.attrs['detail'] ?? null]),
      [
        ['sensor_tls_uncaptured', '1 chunks of plaintext were dropped in the kernel (its ring was full)'],
        ['/next', null],
        ['/again', null],
      ],
    );
  });

  it('keeps a bounded body but hashes all of it, and never keeps credentials', function () {
    const body = 'y'.repeat(100);
    const events = reassemble(
      [
        {
          data: `POST /v1 HTTP/1.1\r\nHost: h\r\nAuthorization: Bearer sk-secret\r\nCookie: a=b\r\nX-Api-Key: k\r\nContent-Length: 100\r\n\r\n${body}`,
        },
      ],
      { maxBodyBytes: 10 },
    );
    assert.deepEqual(http(events[0])['headers'], { host: 'h', 'content-length': '100' });
    assert.deepEqual(
      [http(events[0])['body'], http(events[0])['body_truncated'], http(events[0])['body_sha256']],
      ['y'.repeat(10), true, sha256(body)],
    );
    assert.doesNotMatch(JSON.stringify(events.map((event) => event.attrs)), /sk-secret|a=b/);
  });

  it('counts plaintext that is not HTTP as unparsed, not as lost events, and reads it again where a message starts', function () {
    const pool = new TlsReassembler();
    const events = reassemble(
      [
        { data: 'EHLO mail.example\r\n', conn: 5n },
        { data: 'MAIL FROM:<a@example>\r\n', conn: 5n },
        { data: 'GET /after HTTP/1.1\r\nHost: h\r\n\r\n', conn: 5n },
      ],
      {},
      pool,
    );
    // SMTP's lines look like a method at first; each is told apart when its line ends, not held as
    // a head until the stream goes idle (which would count it evicted, a loss)
    assert.deepEqual(
      events.map((event) => [event.type, event.attrs['loss'] ?? http(event)['path']]),
      [
        ['capture_loss', 'sensor_tls_unparsed'],
        ['capture_loss', 'sensor_tls_unparsed'],
        ['tls_write', '/after'],
      ],
    );
    assert.deepEqual(events[0]!.attrs, {
      loss: 'sensor_tls_unparsed',
      probe: 'tls_write',
      detail: 'not an HTTP/1.x start line: "EHLO mail.example"',
      unparsed_tls_messages: 1,
    });
    assert.equal(reportedGap(events[0]!, 'b.0'), undefined, 'no coverage gap: nothing was lost');
    assert.deepEqual(notLossCounts(events[0]!.attrs), [['tls_unparsed_messages', 1]]);
    const binary = reassemble([{ data: '\x00\x00\x00\x08\x04\xd2\x16\x2f', conn: 7n }], {}, pool);
    assert.deepEqual(binary[0]!.attrs['detail'], 'its plaintext does not start an HTTP/1.x message');
    assert.deepEqual([pool.stats().unparsed, pool.stats().uncaptured, pool.stats().evicted], [3, 0, 0]);
  });

  it("reads the server's side of an HTTP/2 connection as HTTP/2, not as HTTP/1.x that does not parse", function () {
    const pool = new TlsReassembler();
    const events = reassemble(
      [
        { data: 'PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n', conn: 6n },
        // the server's SETTINGS frame, on the read side of the same connection
        { data: '\x00\x00\x00\x04\x00\x00\x00\x00\x00', conn: 6n, direction: 'read' },
      ],
      {},
      pool,
    );
    assert.deepEqual(
      events.map((event) => [event.type, event.attrs['protocol'], event.attrs['bytes']]),
      [
        ['tls_write', 'http2', 24],
        ['tls_read', 'http2', 9],
      ],
    );
    assert.equal(pool.stats().unparsed, 0);
  });

  it('gives up a head past its bound as evicted at the bound, a loss', function () {
    const events = reassemble([{ data: `GET /${'a'.repeat(300)}` }], { maxHeadBytes: 100 });
    assert.deepEqual(
      events.map((event) => [event.attrs['loss'], event.attrs['lost_events']]),
      [['sensor_tls_evicted', 1]],
    );
  });

  it('completes a body that runs to the connection end when the stream goes idle, and counts one cut short', function () {
    const pool = new TlsReassembler({ ...defaultTlsBounds, idleNs: 1_000n });
    reassemble(
      [
        { data: 'HTTP/1.0 200 OK\r\n\r\nuntil close', direction: 'read', conn: 1n },
        { data: 'POST /x HTTP/1.1\r\nContent-Length: 50\r\n\r\nonly part', conn: 2n },
      ],
      {},
      pool,
    );
    const { events } = decodeSensorBatch(pool.flush(t0 + 5_000n, false));
    assert.deepEqual(
      events.map((event) => [
        event.type,
        http(event)['body'] ?? event.attrs['loss'],
        http(event)['ended_by'] ?? null,
      ]),
      [
        ['tls_read', 'until close', 'close'],
        ['capture_loss', 'sensor_tls_evicted', null],
      ],
    );
    assert.equal(pool.stats().streams, 0);
  });

  it('evicts the least recently fed stream past its bounds, and counts what that cut', function () {
    const pool = new TlsReassembler({ ...defaultTlsBounds, maxStreams: 2 });
    const events = reassemble(
      [1n, 2n, 3n].map((conn) => ({ data: 'POST /x HTTP/1.1\r\nContent-Length: 50\r\n\r\npart', conn })),
      {},
      pool,
    );
    assert.deepEqual(
      events.map((event) => [event.attrs['loss'], event.attrs['lost_events']]),
      [['sensor_tls_evicted', 1]],
    );
    assert.deepEqual([pool.stats().streams, pool.stats().evicted], [2, 1]);
    const bytes = new TlsReassembler({ ...defaultTlsBounds, maxPendingBytes: 100 });
    const held = reassemble([{ data: `GET /${'a'.repeat(200)}` }], {}, bytes);
    assert.deepEqual(
      held.map((event) => event.attrs['loss']),
      ['sensor_tls_evicted'],
    );
  });

  it('counts records that are no TLS chunk, or do not fit their batch, as malformed', function () {
    const batch = chunkBatch([{ data: 'GET / HTTP/1.1\r\n\r\n' }]);
    new DataView(batch.buffer).setUint16(8, 3, true); // op: file_open
    const pool = new TlsReassembler();
    const { events } = decodeSensorBatch(pool.take(batch, t0));
    assert.deepEqual(
      events.map((event) => [event.attrs['loss'], event.attrs['lost_events']]),
      [['sensor_malformed', 1]],
    );
    const record = chunkBatch([{ data: 'GET / HTTP/1.1\r\n\r\n' }]);
    pool.take(record.subarray(0, 100), t0); // the record's size goes past the batch's end
    pool.take(record.subarray(0, 40), t0); // too short for a header
    assert.equal(pool.stats().malformed, 3);
  });
});
