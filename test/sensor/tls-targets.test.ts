/**
 * TlsTargets' scans over a /proc of the test's own (a directory of `<pid>/maps` and `<pid>/root`):
 * given the processes a batch came from (capture agents), it reads those alone, those asked for while
 * a scan ran included; without, every process; at start, every process only under capture host. The files are the system's libssl, read and "attached" through a function that records
 * the attach instead of loading uprobes (that is test/sensor/tls.test.ts's, with the sensor).
 */
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { batchTgids } from '../../src/sensor/batch-tgids.js';
import { header, headerBytes, RecordOp } from '../../src/sensor/records.js';
import { joinRecords, newRecord } from '../../src/sensor/record-writer.js';
import { defaultTlsBudgets, TlsTargets } from '../../src/sensor/tls-targets.js';
import { useTempDir } from '../support/temp-dir.js';

// one file under two names, as /lib and /usr/lib are on merged-/usr systems: two targets by their keys
const libssl = ['/usr/lib/x86_64-linux-gnu/libssl.so.3', '/lib/x86_64-linux-gnu/libssl.so.3'];

/** A record of `op` from process `tgid`. */
function recordOf(op: number, tgid: number, size: number = headerBytes): Uint8Array {
  const record = newRecord(op, size, 1n);
  new DataView(record.buffer).setUint32(header.tgid, tgid, true);
  return record;
}

describe('TlsTargets', function () {
  const proc = useTempDir('provd-tls-targets-');
  before(function () {
    if (!libssl.every((path) => existsSync(path))) {
      process.stderr.write(`      skipped: no ${libssl[0]} here\n`);
      this.skip();
    }
  });

  /** Process `pid` of the fake /proc, mapping `path` executable as file `inode`. */
  function fakeProcess(pid: number, path: string, inode: number): void {
    mkdirSync(join(proc.path, String(pid)));
    symlinkSync('/', join(proc.path, String(pid), 'root'));
    writeFileSync(
      join(proc.path, String(pid), 'maps'),
      `7f0000000000-7f0000001000 r-xp 00000000 fe:01 ${inode}          ${path}\n`,
    );
  }

  /** Targets over the fake /proc whose attach records each binary in `attached`, every probe attached. */
  function recordingTargets(attached: string[]): TlsTargets {
    return new TlsTargets(
      (binary, probes) => {
        attached.push(binary);
        return Promise.resolve(
          probes.map((probe) => ({
            program: probe.program,
            probe: probe.where,
            attached: true,
            error: null,
          })),
        );
      },
      { ...defaultTlsBudgets, minScanIntervalMs: 0 },
      proc.path,
    );
  }

  /** The binaries `targets` reports, sorted. */
  const reportedPaths = (targets: TlsTargets): string[] =>
    targets
      .report()
      .map((target) => target.path)
      .sort();

  it('scans only the processes it is given, and every process in /proc when given none', async function () {
    fakeProcess(100, libssl[0]!, 1001);
    fakeProcess(200, libssl[1]!, 1002);
    const attached: string[] = [];
    const targets = recordingTargets(attached);
    await targets.scan([100, 999]); // 999: gone before its scan
    assert.deepEqual(
      targets.report().map((target) => [target.path, target.status]),
      [[libssl[0], 'attached']],
      'the process given alone',
    );
    await targets.scan([100]);
    assert.equal(attached.length, 1, 'a process scanned once is not read again');
    await targets.scan();
    assert.deepEqual(reportedPaths(targets), [...libssl].sort(), 'every process of /proc');
  });

  it('scans the processes asked for during a scan after it, and still no other process', async function () {
    fakeProcess(400, libssl[0]!, 1004);
    fakeProcess(500, libssl[1]!, 1005);
    fakeProcess(600, libssl[0]!, 1006); // a process no batch came from (a host's own): a third target
    const attached: string[] = [];
    const targets = recordingTargets(attached);
    const first = targets.scan([400]);
    const asked = targets.scan([500]); // while the first runs: scanned once it has ended
    assert.equal(asked, first, 'the caller waits for the scan that runs');
    await first;
    await targets.scan([]); // the scan queued by the second call, or one after it
    assert.deepEqual(reportedPaths(targets), [...libssl].sort(), 'the processes asked for, and no other');
    assert.deepEqual(
      attached.filter((binary) => binary.startsWith(join(proc.path, '600'))),
      [],
      'a process nobody asked for is not read',
    );
  });

  it('reads no process of /proc at start under capture agents, and every one under capture host', async function () {
    fakeProcess(300, libssl[0]!, 1003);
    const started = async (wholeHost: boolean): Promise<string[]> => {
      const attached: string[] = [];
      await recordingTargets(attached).start(wholeHost);
      return attached;
    };
    // the system's libssl and node are probed either way; the fake /proc's process only by a host scan
    const agents = await started(false);
    assert.ok(agents.length > 0, 'the system libssl is probed');
    assert.deepEqual(
      agents.filter((binary) => binary.startsWith(proc.path)),
      [],
    );
    const host = await started(true);
    assert.deepEqual(
      host.filter((binary) => binary.startsWith(proc.path)),
      [join(proc.path, '300', 'root') + libssl[0]],
    );
  });

  it("reads a batch's processes from its records' headers", function () {
    const batch = joinRecords([
      recordOf(RecordOp.exec, 41, headerBytes + 12), // padded to 8 bytes in the batch
      recordOf(RecordOp.libraries, 41),
      recordOf(RecordOp.fileOpen, 42),
      recordOf(RecordOp.exit, 0), // no process: not scanned
    ]);
    assert.deepEqual([...batchTgids(batch.buffer as ArrayBuffer)], [41, 42]);
    // a record whose size does not fit ends the walk: the decoder rejects and counts it
    const cut = batch.slice(0, batch.length - 4);
    new DataView(cut.buffer).setUint16(8 + header.size, 9000, true);
    assert.deepEqual([...batchTgids(cut.buffer)], []);
  });

  it("leaves out a batch's processes that ended in it, unless a record of theirs follows the end", function () {
    const batch = joinRecords([
      recordOf(RecordOp.exec, 51, headerBytes + 12), // a loop's /bin/true: exec, exit
      recordOf(RecordOp.exit, 51),
      recordOf(RecordOp.exec, 52),
      recordOf(RecordOp.fileOpen, 53),
      recordOf(RecordOp.exit, 54), // ended, its other records in an earlier batch
      recordOf(RecordOp.exec, 55),
      recordOf(RecordOp.exit, 55),
      recordOf(RecordOp.exec, 55), // its pid given to a new process
    ]);
    assert.deepEqual([...batchTgids(batch.buffer as ArrayBuffer)].sort(), [52, 53, 55]);
  });
});
