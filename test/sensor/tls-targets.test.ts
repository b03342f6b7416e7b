/**
 * TlsTargets' scans over a /proc of the test's own (a directory of `<pid>/maps` and `<pid>/root`):
 * given the processes a batch came from (capture agents), it reads those alone; without, every
 * process. The files are the system's libssl, read and "attached" through a function that records
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

  it('scans only the processes it is given, and every process in /proc when given none', async function () {
    fakeProcess(100, libssl[0]!, 1001);
    fakeProcess(200, libssl[1]!, 1002);
    const attached: string[] = [];
    const targets = new TlsTargets(
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
    await targets.scan([100, 999]); // 999: gone before its scan
    assert.deepEqual(
      targets.report().map((target) => [target.path, target.status]),
      [[libssl[0], 'attached']],
      'the process given alone',
    );
    await targets.scan([100]);
    assert.equal(attached.length, 1, 'a process scanned once is not read again');
    await targets.scan();
    assert.deepEqual(
      targets
        .report()
        .map((target) => target.path)
        .sort(),
      [...libssl].sort(),
      'every process of /proc',
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
});
