/**
 * The ring reader hands batches over whole: a record and the folded record that completes it (a
 * repeat's count, an exec's libraries) always travel in one batch, however small the batch limit.
 * A repeat cut off into the next batch could not be decoded, and the opens it counted were lost.
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadSensorAddon, type NativeSensor } from '../../src/sensor/binding.js';
import { decodeSensorBatch } from '../../src/sensor/decode-records.js';
import { sensorUnavailable } from '../../src/sensor/host-support.js';

const opens = 50;

describe('the ring reader at its batch limit', function () {
  this.timeout(30_000);
  let work = '';
  before(function () {
    const why = sensorUnavailable();
    if (why === undefined) return;
    process.stderr.write(`      skipped: ${why}\n`);
    this.skip();
  });
  beforeEach(function () {
    work = mkdtempSync(join(tmpdir(), 'provd-batch-'));
  });
  afterEach(function () {
    rmSync(work, { recursive: true, force: true });
  });

  it('keeps a repeated open and its repeat count in one batch when every record fills a batch', async function () {
    const loaded = loadSensorAddon();
    if ('unavailable' in loaded) throw new Error(loaded.unavailable);
    const file = join(work, 'read-me');
    writeFileSync(file, 'x\n');
    const batches: ArrayBuffer[] = [];
    // one record fills a batch: the limit falls between every record and the next
    const sensor: NativeSensor = new loaded.Sensor(
      { selfTgid: process.pid, batchRecords: 1, batchBytes: 1, flushMs: 1 },
      (batch) => batches.push(batch),
    );
    await sensor.start();
    let pid: number | undefined;
    try {
      // one thread opens the same file again and again: identical records, folded into one and a repeat
      const shell = spawn('sh', [
        '-c',
        `i=0; while [ $i -lt ${opens} ]; do read x < '${file}'; i=$((i+1)); done`,
      ]);
      pid = shell.pid;
      const code = await new Promise<number | null>((resolve) => shell.once('exit', resolve));
      assert.equal(code, 0);
      await new Promise((resolve) => setTimeout(resolve, 500)); // past the fold window of 100 ms
    } finally {
      await sensor.close();
    }
    // close ends the reader; its last batches may still be on their way to this thread
    const handed = sensor.stats().batches;
    for (let waited = 0; batches.length < handed && waited < 5_000; waited += 10)
      await new Promise((resolve) => setTimeout(resolve, 10));
    assert.equal(batches.length, handed, 'every batch the reader handed over arrived');
    let counted = 0;
    const failures: string[] = [];
    for (const batch of batches) {
      const { events, errors } = decodeSensorBatch(new Uint8Array(batch));
      failures.push(...errors.map((error) => error.message));
      for (const event of events)
        if (event.tgid === pid && event.attrs['path'] === file)
          counted += typeof event.attrs['count'] === 'number' ? event.attrs['count'] : 1;
    }
    assert.deepEqual(failures, []);
    assert.equal(counted, opens);
  });
});
