import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { decodeSensorBatch } from '../../src/sensor/decode-records.js';
import { librariesRecord } from '../../src/sensor/folded-records.js';
import {
  header,
  headerBytes,
  layouts,
  recordBaseCut,
  RecordOp,
  recordTruncated,
  recordUnreadable,
} from '../../src/sensor/records.js';
import type { ParsedEvent } from '../../src/model/event.js';

/**
 * One real batch the ring reader handed over (test/fixtures/sensor/exec-exit.bin): a parent ran
 * `/bin/echo provd-fixture "two words"`, `/bin/sh -c "exit 3"` and `/bin/true` with a 1,500-byte
 * argument (longer than the 1,024 bytes of argv the kernel side keeps); only their records are kept.
 */
const recorded = (): Uint8Array =>
  new Uint8Array(readFileSync(new URL('../../../test/fixtures/sensor/exec-exit.bin', import.meta.url)));

/** The byte offset of each record in a batch. */
function recordOffsets(batch: Uint8Array): number[] {
  const view = new DataView(batch.buffer, batch.byteOffset, batch.byteLength);
  const found: number[] = [];
  for (let at = 8; at < batch.length; at += (view.getUint16(at + header.size, true) + 7) & ~7) found.push(at);
  return found;
}

/** Byte arrays one after another. */
function concat(...parts: Uint8Array[]): Uint8Array {
  const joined = new Uint8Array(parts.reduce((sum, part) => sum + part.length, 0));
  let at = 0;
  for (const part of parts) {
    joined.set(part, at);
    at += part.length;
  }
  return joined;
}

/**
 * A libraries or locale record as the ring reader writes it after an exec (native/src/record-folder.h
 * libraries_record): the exec's header with `op`, then the counts, the kept results and their paths,
 * padded to 8 bytes as records in a batch are.
 */
function foldedOpensRecord(
  execHeader: Uint8Array,
  op: number,
  flags: number,
  paths: string[],
  results: number[],
  opens: number,
  failed: number,
): Uint8Array {
  const text = Buffer.from(paths.map((path) => `${path}\0`).join(''));
  const size = librariesRecord.paths + text.length;
  const record = new Uint8Array((size + 7) & ~7);
  record.set(execHeader);
  const view = new DataView(record.buffer);
  view.setUint16(header.op, op, true);
  view.setUint16(header.size, size, true);
  view.setUint32(header.flags, flags, true);
  view.setUint32(librariesRecord.opens, opens, true);
  view.setUint32(librariesRecord.kept, results.length, true);
  view.setUint32(librariesRecord.paths_size, text.length, true);
  view.setUint32(librariesRecord.failed, failed, true);
  results.forEach((result, i) => view.setInt32(librariesRecord.results + i * 4, result, true));
  record.set(text, librariesRecord.paths);
  return record;
}

describe('decodeSensorBatch', function () {
  it('decodes recorded exec and exit records into events with their identity, argv and status', function () {
    const { events, rejected } = decodeSensorBatch(recorded());
    assert.equal(rejected, 0);
    assert.deepEqual(
      events.map((event) => [
        event.type,
        event.comm,
        event.attrs['path'] ?? null,
        event.attrs['exit_code'] ?? null,
      ]),
      [
        ['execve', 'echo', '/bin/echo', null],
        ['process_exit', 'echo', null, 0],
        ['execve', 'sh', '/bin/sh', null],
        ['process_exit', 'sh', null, 3],
        ['execve', 'true', '/bin/true', null],
        ['process_exit', 'true', null, 0],
        ['execve', 'echo', '/usr/bin/echo', null],
        ['process_exit', 'echo', null, 0],
        ['execve', 'python3', '/usr/bin/python3', null],
        ['execve', 'memfd:payload', '/memfd:payload', null],
        ['process_exit', 'memfd:payload', null, 0],
      ],
    );
    assert.deepEqual(events[0]!.attrs['argv'], ['/bin/echo', 'provd-fixture', 'two words']);
    assert.deepEqual(events[2]!.attrs['argv'], ['/bin/sh', '-c', 'exit 3']);
    // run by a relative name from /usr/bin: the path is the file the new image runs from
    const { tid: _tid, gid: _gid, ...relative } = events[6]!.attrs;
    assert.deepEqual(relative, {
      path: '/usr/bin/echo',
      given_path: './echo',
      relative: true,
      argv: ['./echo', 'relative-exec'],
    });
    // a payload run from memory (fexecve of a memfd): the name says only /dev/fd/3
    assert.deepEqual(
      [events[9]!.attrs['path'], events[9]!.attrs['given_path']],
      ['/memfd:payload', '/dev/fd/3'],
    );
    for (const event of events) {
      assert.equal(event.source, 'provd_sensor');
      assert.equal(event.pid, event.tgid);
      assert.equal(event.ppid, events[0]!.ppid, 'all were started by one parent');
      assert.match(event.cgroupId!, /^[1-9][0-9]*$/);
      assert.match(event.time, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{9}Z$/);
    }
    // an exec and its exit are one process
    assert.equal(events[0]!.tgid, events[1]!.tgid);
    assert.notEqual(events[0]!.tgid, events[2]!.tgid);
    // capture order is time order here: one parent ran them one after another
    const times = events.map((event) => event.timeNs);
    assert.deepEqual(
      [...times].sort((a, b) => (a < b ? -1 : 1)),
      times,
    );
  });

  it('flags an argv cut at the kernel-side bound and keeps what fits', function () {
    const { events } = decodeSensorBatch(recorded());
    const cut = events[4]!;
    assert.equal(cut.attrs['truncated'], true);
    const argv = cut.attrs['argv'] as string[];
    assert.equal(argv[0], '/bin/true');
    assert.equal(argv[1], 'x'.repeat(1024 - '/bin/true\0'.length));
    assert.equal(events[0]!.attrs['truncated'], undefined);
  });

  it('keeps the exact bytes of a path or comm that is not UTF-8 beside its text', function () {
    const batch = recorded().slice();
    const first = recordOffsets(batch)[0]!;
    batch[first + layouts.exec_event.fields.filename + 5] = 0xff; // /bin/\xffcho
    batch[first + header.comm + 1] = 0xfe; // e\xfeho
    const event = decodeSensorBatch(batch).events[0]!;
    assert.equal(event.attrs['path'], '/bin/\ufffdcho');
    assert.equal(event.comm, 'e\ufffdho');
    assert.deepEqual(event.attrs['not_utf8_hex'], {
      path: Buffer.from('/bin/\xffcho', 'latin1').toString('hex'),
      comm: Buffer.from('e\xfeho', 'latin1').toString('hex'),
    });
    assert.equal(decodeSensorBatch(recorded()).events[0]!.attrs['not_utf8_hex'], undefined);
  });

  it('turns the monotonic capture time into wall time with the offset the batch carries', function () {
    const batch = recorded();
    const before = decodeSensorBatch(batch.slice()).events[0]!.timeNs;
    const shifted = batch.slice();
    const view = new DataView(shifted.buffer);
    view.setBigInt64(0, view.getBigInt64(0, true) + 1_000_000_000n, true);
    assert.equal(decodeSensorBatch(shifted).events[0]!.timeNs, before + 1_000_000_000n);
  });

  it("decodes an exec's locale record into fields apart from its libraries, counting the failed opens", function () {
    const batch = recorded();
    const [first, second] = recordOffsets(batch) as [number, number];
    const paths = ['/usr/lib/locale/C.utf8/LC_CTYPE', '/usr/lib/locale/C.UTF-8/LC_CTYPE'];
    const folded = (
      op: number,
      flags: number,
      results: number[],
      opens: number,
      failed: number,
    ): Uint8Array =>
      foldedOpensRecord(batch.subarray(first, first + headerBytes), op, flags, paths, results, opens, failed);
    const decode = (...records: Uint8Array[]): ParsedEvent[] => {
      const { events, errors } = decodeSensorBatch(
        concat(batch.subarray(0, second), ...records, batch.subarray(second)),
      );
      assert.deepEqual(errors, []);
      return events;
    };
    // two kept, one opened and one failed (ENOENT), of 40 opens of which 30 failed: past the bound
    const [exec] = decode(folded(RecordOp.locale, recordTruncated, [3, -2], 40, 30));
    const { locale_files, locale_failed, locale_opens, locale_truncated, libraries } = exec!.attrs;
    assert.deepEqual(
      { locale_files, locale_failed, locale_opens, locale_truncated, libraries },
      {
        locale_files: ['/usr/lib/locale/C.utf8/LC_CTYPE'],
        locale_failed: 30,
        locale_opens: 40,
        locale_truncated: true,
        libraries: undefined,
      },
    );
    // after the libraries record, each to its own fields; the libraries' values as before
    const [both] = decode(
      folded(RecordOp.libraries, 0, [3, -2], 2, 1),
      folded(RecordOp.locale, 0, [3, 3], 2, 0),
    );
    assert.deepEqual(both!.attrs['libraries'], [paths[0]]);
    assert.deepEqual(both!.attrs['libraries_failed'], [{ path: paths[1], error: 'ENOENT' }]);
    assert.equal(both!.attrs['library_opens'], 2);
    assert.deepEqual(both!.attrs['locale_files'], paths);
    assert.equal(both!.attrs['locale_failed'], undefined, 'none failed');
    assert.equal(both!.attrs['locale_opens'], 2);
  });

  it('rejects a locale record that follows no exec', function () {
    const batch = recorded();
    const [first, second, third] = recordOffsets(batch) as [number, number, number];
    assert.equal(new DataView(batch.buffer).getUint16(second + header.op, true), RecordOp.exit);
    const record = foldedOpensRecord(
      batch.subarray(second, second + headerBytes),
      RecordOp.locale,
      0,
      [],
      [],
      1,
      1,
    );
    const { events, errors } = decodeSensorBatch(
      concat(batch.subarray(0, third), record, batch.subarray(third)),
    );
    assert.deepEqual(
      errors.map((error) => error.message),
      ['record 3: locale record after a record that is no exec'],
    );
    assert.equal(events[1]!.attrs['locale_opens'], undefined);
    assert.ok(first < second);
  });

  it('keeps the records before a batch cut mid-record and rejects the cut one', function () {
    const batch = recorded();
    const third = recordOffsets(batch)[2]!;
    const { events, rejected, errors } = decodeSensorBatch(batch.slice(0, third + 100));
    assert.equal(events.length, 2);
    assert.equal(rejected, 1);
    assert.equal(errors[0]!.code, 'missing_field');
    assert.match(errors[0]!.message, /record 3: its size \d+ does not fit the batch/);
  });

  it('rejects a record of an unknown op and goes on with the next', function () {
    const batch = recorded().slice();
    const view = new DataView(batch.buffer);
    view.setUint16(recordOffsets(batch)[0]! + header.op, 77, true);
    const { events, rejected, errors } = decodeSensorBatch(batch);
    assert.equal(rejected, 1);
    assert.deepEqual(errors[0], {
      line: 1,
      code: 'unknown_type',
      message: 'record 1: op 77 is not a record the sensor writes',
    });
    assert.equal(events.length, 10);
    assert.equal(events[0]!.type, 'process_exit');
  });

  it('rejects a record whose size is below a header, and stops there rather than misframe the rest', function () {
    const batch = recorded().slice();
    const view = new DataView(batch.buffer);
    view.setUint16(recordOffsets(batch)[1]! + header.size, 3, true);
    const { events, rejected } = decodeSensorBatch(batch);
    assert.equal(events.length, 1);
    assert.equal(rejected, 1);
  });

  it('rejects an exec record too short for the argv it claims', function () {
    const batch = recorded().slice();
    const view = new DataView(batch.buffer);
    const first = recordOffsets(batch)[0]!;
    assert.equal(view.getUint16(first + header.op, true), RecordOp.exec);
    view.setUint32(first + layouts.exec_event.fields.argv_size, 1024, true); // beyond the bytes the record holds
    const { events, errors } = decodeSensorBatch(batch);
    assert.equal(events.length, 10);
    assert.match(errors[0]!.message, /record 1: exec record of \d+ bytes holds no argv of 1024/);
  });

  it('decodes a recorded file, connect, setuid, setgid and ptrace record of each trigger category', function () {
    // test/fixtures/sensor/categories.bin: test/fixtures/sensor/trigger.py run for each category
    // (files in a temporary directory, connect to port 9, setuid, ptrace) as root; its records only
    const { events, rejected } = decodeSensorBatch(
      new Uint8Array(readFileSync(new URL('../../../test/fixtures/sensor/categories.bin', import.meta.url))),
    );
    assert.equal(rejected, 0);
    const ofTrigger = (event: ParsedEvent): boolean => /provd-fixture-/.test(String(event.attrs['path']));
    const fileEvents = events
      .filter((event) => event.type !== 'execve' && ofTrigger(event))
      .map((event) => [event.type, event.attrs]);
    const directory = String(
      events.find((event) => /trigger-file/.test(String(event.attrs['path'])))!.attrs['path'],
    ).replace(/\/[^/]+$/, '');
    const path = `${directory}/trigger-file.txt`;
    const credentials = `${directory}/.aws/credentials`;
    const strip = ({ tid: _tid, gid: _gid, ...attrs }: Record<string, unknown>): Record<string, unknown> =>
      attrs;
    assert.deepEqual(
      fileEvents.map(([type, attrs]) => [type, strip(attrs as Record<string, unknown>)]),
      [
        ['file_write', { path, flags: 'O_WRONLY|O_CREAT|O_TRUNC|O_CLOEXEC', mode: 0o666, result: 3 }],
        ['file_open', { path, flags: 'O_RDONLY|O_CLOEXEC', result: 3 }],
        ['file_rename', { path, new_path: `${path}.moved`, result: 0 }],
        ['file_unlink', { path: `${path}.moved`, result: 0 }],
        [
          'file_open',
          {
            path: `${directory}/missing-file.txt`,
            flags: 'O_RDONLY|O_CLOEXEC',
            result: -2,
            failed: true,
            error: 'ENOENT',
          },
        ],
        // relative paths, from DIR/.aws: made absolute with the directory the kernel side read
        [
          'file_write',
          {
            path: credentials,
            given_path: 'credentials',
            relative: true,
            flags: 'O_WRONLY|O_CREAT|O_TRUNC|O_CLOEXEC',
            mode: 0o666,
            result: 3,
          },
        ],
        [
          'secret_path',
          {
            path: credentials,
            given_path: 'credentials',
            relative: true,
            flags: 'O_RDONLY|O_CLOEXEC',
            result: 3,
            observed_type: 'file_open',
          },
        ],
        [
          'file_rename',
          {
            path: credentials,
            given_path: 'credentials',
            relative: true,
            new_path: `${directory}/relative-moved.txt`,
            given_new_path: '../relative-moved.txt',
            result: 0,
          },
        ],
        [
          'file_unlink',
          {
            path: `${directory}/relative-moved.txt`,
            given_path: '../relative-moved.txt',
            relative: true,
            result: 0,
          },
        ],
      ],
    );
    const others = events
      .filter((event) => ['network_connect', 'setuid', 'setgid', 'ptrace'].includes(event.type))
      .map((event) => [event.type, strip(event.attrs)]);
    const ptrace = events.find((event) => event.type === 'ptrace')!;
    const traced = events.find((event) => event.type === 'execve' && event.comm === 'sleep')!;
    assert.deepEqual(others, [
      [
        'network_connect',
        { dst_ip: '127.0.0.1', dst_port: 9, result: -111, failed: true, error: 'ECONNREFUSED' },
      ],
      ['network_connect', { dst_ip: '::1', dst_port: 9, result: -111, failed: true, error: 'ECONNREFUSED' }],
      ['setgid', { target_gid: 65534, result: 0 }],
      ['setuid', { target_uid: 65534, result: 0 }],
      ['ptrace', { request: 'PTRACE_ATTACH', target_pid: traced.tgid, result: 0 }],
    ]);
    assert.equal(ptrace.uid, 0);
    // the kill that ended the traced child is its exit's signal
    const killed = events.find((event) => event.type === 'process_exit' && event.tgid === traced.tgid)!;
    assert.equal(killed.attrs['signal'], 9);
  });

  it('decodes recorded DNS queries: the name and type asked, the resolver, the bytes sent', function () {
    // test/fixtures/sensor/dns.bin: trigger.py dns (sendto, send, sendmsg, an A+AAAA sendmmsg, IPv6)
    const { events, rejected } = decodeSensorBatch(
      new Uint8Array(readFileSync(new URL('../../../test/fixtures/sensor/dns.bin', import.meta.url))),
    );
    assert.equal(rejected, 0);
    const queries = events
      .filter((event) => event.type === 'dns_query')
      .map(({ attrs }) => [
        attrs['query'],
        attrs['query_type'],
        attrs['dst_ip'],
        attrs['dst_port'],
        attrs['bytes'],
      ]);
    assert.deepEqual(queries, [
      ['sendto.provd.test', 'A', '127.0.0.1', 53, 35],
      ['send.provd.test', 'AAAA', '127.0.0.1', 53, 33],
      ['sendmsg.provd.test', 'TXT', '127.0.0.1', 53, 36],
      ['pair.provd.test', 'A', '127.0.0.1', 53, 33],
      ['pair.provd.test', 'AAAA', '127.0.0.1', 53, 33],
      ['six.provd.test', 'A', '::1', 53, 32],
    ]);
  });

  it('keeps a DNS record whose payload it cannot read, saying why', function () {
    const batch = new Uint8Array(
      readFileSync(new URL('../../../test/fixtures/sensor/dns.bin', import.meta.url)),
    );
    const view = new DataView(batch.buffer);
    const first = recordOffsets(batch).find((at) => view.getUint16(at + header.op, true) === RecordOp.dns)!;
    view.setUint32(first + layouts.dns_event.fields.payload_size, 5, true); // cut inside the DNS header
    const event = decodeSensorBatch(batch).events.find((found) => found.type === 'dns_query')!;
    assert.deepEqual(
      [event.attrs['query'], event.attrs['unreadable']],
      [undefined, 'shorter than a DNS header'],
    );
  });

  it('keeps a relative path as given when its directory could not be read, and names an unknown errno', function () {
    const batch = new Uint8Array(
      readFileSync(new URL('../../../test/fixtures/sensor/categories.bin', import.meta.url)),
    );
    const view = new DataView(batch.buffer);
    const unlink = recordOffsets(batch).find(
      (at) => view.getUint16(at + header.op, true) === RecordOp.fileUnlink,
    )!;
    const pathAt = unlink + layouts.file_unlink_event.fields.path;
    const relative = new TextEncoder().encode('gone.txt\0');
    batch.set(relative, pathAt);
    view.setUint32(unlink + layouts.file_unlink_event.fields.path_size, relative.length - 1, true);
    view.setUint32(unlink + header.flags, recordBaseCut, true);
    view.setInt32(unlink + layouts.file_unlink_event.fields.result, -200, true);
    const event = decodeSensorBatch(batch).events.find((found) => found.type === 'file_unlink')!;
    const { tid: _tid, gid: _gid, ...attrs } = event.attrs;
    assert.deepEqual(attrs, {
      path: 'gone.txt',
      given_path: 'gone.txt',
      relative: true,
      path_unresolved: true,
      result: -200,
      failed: true,
      error: 'errno 200',
    });
  });

  it('says a path could not be read rather than store an empty one, and takes an opened file path instead', function () {
    const batch = new Uint8Array(
      readFileSync(new URL('../../../test/fixtures/sensor/categories.bin', import.meta.url)),
    );
    const view = new DataView(batch.buffer);
    const opens = recordOffsets(batch).filter(
      (at) => view.getUint16(at + header.op, true) === RecordOp.fileOpen,
    );
    const fields = layouts.file_open_event.fields;
    // a failed open whose path was not paged in: nothing to recover it from
    const failed = opens.find((at) => view.getInt32(at + fields.result, true) < 0)!;
    view.setUint32(failed + header.flags, recordUnreadable | recordTruncated, true);
    view.setUint32(failed + fields.path_size, 0, true);
    // an open that succeeded: the kernel side wrote the opened file path into its base
    const opened = opens.find((at) => view.getInt32(at + fields.result, true) >= 0)!;
    view.setUint32(opened + header.flags, recordUnreadable, true);
    view.setUint32(opened + fields.path_size, 0, true);
    const components = new TextEncoder().encode('passwd\0etc\0');
    batch.set(components, opened + fields.base);
    view.setUint32(opened + fields.base_size, components.length, true);
    const events = decodeSensorBatch(batch).events.filter((event) => event.type.startsWith('file_'));
    const read = (at: number): Record<string, unknown> => {
      const { tid: _tid, gid: _gid, flags: _flags, mode: _mode, ...attrs } = events[opensIndex(at)]!.attrs;
      return attrs;
    };
    const opensIndex = (at: number): number =>
      recordOffsets(batch)
        .filter((offset) =>
          [RecordOp.fileOpen, RecordOp.fileRename, RecordOp.fileUnlink].includes(
            view.getUint16(offset + header.op, true) as 3,
          ),
        )
        .indexOf(at);
    assert.deepEqual(read(failed), {
      path: null,
      path_unreadable: true,
      truncated: true,
      result: -2,
      failed: true,
      error: 'ENOENT',
    });
    assert.deepEqual(read(opened), {
      path: '/etc/passwd',
      result: view.getInt32(opened + fields.result, true),
    });
  });

  it('finds nothing in an empty batch or one holding only its clock offset', function () {
    assert.deepEqual(decodeSensorBatch(new Uint8Array(0)).events, []);
    assert.deepEqual(decodeSensorBatch(new Uint8Array(8)).events, []);
    const { rejected } = decodeSensorBatch(new Uint8Array(20));
    assert.equal(rejected, 1, 'bytes after the offset too few for a header are rejected, not ignored');
  });
});
