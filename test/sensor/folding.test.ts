/**
 * What the ring reader folds (native/src/record-folder.cc), against the real sensor: a dynamic
 * loader's opens, and the C library's locale opens after them, become fields of the exec before
 * them, however fast the process exits (its exit and its opens come from different probes), and a
 * thread's repeated records fold into the first even with other records between them, keeping the
 * order of their first times. A record and the folded record that completes it (a repeat's count,
 * an exec's libraries) always travel in one batch, however small the batch limit: a repeat cut off
 * into the next batch could not be decoded, and the opens it counted were lost.
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { loadSensorAddon, type NativeSensor } from '../../src/sensor/binding.js';
import { decodeSensorBatch } from '../../src/sensor/decode-records.js';
import { sensorUnavailable } from '../../src/sensor/host-support.js';
import type { ParsedEvent } from '../../src/model/event.js';
import { eventually } from '../support/eventually.js';
import { useTempDir } from '../support/temp-dir.js';

/** Batches as the daemon's sensor hands them over, near enough. */
const ordinaryBatches = { batchRecords: 4096, batchBytes: 1 << 20, flushMs: 100 };

/**
 * Runs `script` in sh with the sensor reading, and every event it decoded, in batch order (fails on
 * a record it could not decode, or a batch handed over that never arrived).
 */
async function captureShell(
  script: string,
  limits = ordinaryBatches,
): Promise<{ pid: number; events: ParsedEvent[] }> {
  const loaded = loadSensorAddon();
  if ('unavailable' in loaded) throw new Error(loaded.unavailable);
  const batches: ArrayBuffer[] = [];
  const sensor: NativeSensor = new loaded.Sensor({ selfTgid: process.pid, ...limits }, (batch) =>
    batches.push(batch),
  );
  const events: ParsedEvent[] = [];
  let decoded = 0;
  // the events so far: decodes the batches that arrived since the last call
  const decodeArrived = (): ParsedEvent[] => {
    for (; decoded < batches.length; decoded++) {
      const batch = decodeSensorBatch(new Uint8Array(batches[decoded]!));
      assert.deepEqual(
        batch.errors.map((error) => error.message),
        [],
      );
      events.push(...batch.events);
    }
    return events;
  };
  await sensor.start();
  let pid = 0;
  try {
    const shell = spawn('sh', ['-c', script]);
    pid = shell.pid ?? 0;
    const code = await new Promise<number | null>((resolve) => shell.once('exit', resolve));
    assert.equal(code, 0);
    // the shell's exit lets every record it and its children held in the fold window go before it
    // (record-folder.h): once it arrives, the running reader folded them all, none is left for close
    await eventually(`the exit of shell ${pid}`, decodeArrived, (seen) =>
      seen.some((event) => event.type === 'process_exit' && event.tgid === pid),
    );
  } finally {
    await sensor.close();
  }
  // close ends the reader; its last batches may still be on their way to this thread
  const handed = sensor.stats().batches;
  await eventually(
    'every batch the reader handed over',
    () => batches.length,
    (arrived) => arrived >= handed,
    {
      timeoutMs: 5_000,
      returnLast: true,
    },
  );
  assert.equal(batches.length, handed, 'every batch the reader handed over arrived');
  return { pid, events: decodeArrived() };
}

const countOf = (event: ParsedEvent): number =>
  typeof event.attrs['count'] === 'number' ? event.attrs['count'] : 1;

describe('the ring reader folding records', function () {
  this.timeout(30_000);
  const work = useTempDir('provd-fold-');
  before(function () {
    const why = sensorUnavailable();
    if (why === undefined) return;
    process.stderr.write(`      skipped: ${why}\n`);
    this.skip();
  });

  it("makes the loader's opens fields of the exec, for processes that exit at once", async function () {
    const execs = 40;
    const { pid, events } = await captureShell(
      `i=0; while [ $i -lt ${execs} ]; do /bin/true; i=$((i+1)); done`,
    );
    const children = events.filter((event) => event.type === 'execve' && event.ppid === pid);
    assert.equal(children.length, execs, 'one exec event per /bin/true');
    const childTgids = new Set(children.map((event) => event.tgid));
    for (const exec of children) {
      const libraries = exec.attrs['libraries'];
      assert.ok(Array.isArray(libraries), `exec of ${exec.tgid} has its libraries`);
      assert.ok(libraries.includes('/etc/ld.so.cache'), `${JSON.stringify(libraries)} holds ld.so.cache`);
      // every open the loader made is counted, the lookups that failed among them
      const failed = exec.attrs['libraries_failed'];
      assert.equal(
        exec.attrs['library_opens'],
        libraries.length + (Array.isArray(failed) ? failed.length : 0),
      );
    }
    const loaderOpens = events.filter(
      (event) =>
        childTgids.has(event.tgid) &&
        (event.type === 'file_open' || event.type === 'file_write') &&
        event.attrs['path'] === '/etc/ld.so.cache',
    );
    assert.deepEqual(loaderOpens, [], 'no loader open stored apart from its exec');
    // and each exit follows its exec
    for (const exec of children) {
      const execAt = events.indexOf(exec);
      const exitAt = events.findIndex((event) => event.type === 'process_exit' && event.tgid === exec.tgid);
      assert.ok(exitAt > execAt, `the exit of ${exec.tgid} comes after its exec`);
    }
  });

  it("makes the C library's locale opens fields of the exec, apart from its libraries", async function () {
    const execs = 10;
    const { pid, events } = await captureShell(
      `i=0; while [ $i -lt ${execs} ]; do LANG=C.UTF-8 /bin/sleep 0; i=$((i+1)); done`,
    );
    const children = events.filter((event) => event.type === 'execve' && event.ppid === pid);
    assert.equal(children.length, execs, 'one exec event per sleep');
    for (const exec of children) {
      const files = exec.attrs['locale_files'];
      assert.ok(Array.isArray(files) && files.length > 0, `exec of ${exec.tgid} has its locale files`);
      assert.ok(
        files.every(
          (file) => typeof file === 'string' && !(exec.attrs['libraries'] as string[]).includes(file),
        ),
        'the locale files are not among the libraries',
      );
      // every locale open is counted, the lookups that failed among them
      const failed = exec.attrs['locale_failed'];
      assert.equal(exec.attrs['locale_opens'], files.length + (typeof failed === 'number' ? failed : 0));
    }
    const childTgids = new Set(children.map((event) => event.tgid));
    const localeOpens = events.filter(
      (event) =>
        childTgids.has(event.tgid) &&
        /^\/usr\/(lib|share)\/locale\/|\/gconv\//.test(String(event.attrs['path'])),
    );
    assert.deepEqual(
      localeOpens.map((event) => event.attrs['path']),
      [],
      'no locale open stored apart from its exec',
    );
  });

  it("folds the locale's opens past one that failed and one whose path the probe could not read, counting them", async function () {
    // C.UTF-8 is looked up first as C.UTF-8 (ENOENT), then found as C.utf8; xx_YY names no locale at
    // all; the locale-archive open (absent here) names a path the probe often cannot read yet
    const { pid, events } = await captureShell('LANG=C.UTF-8 LC_TIME=xx_YY.UTF-8 cat /dev/null');
    const cat = events.find((event) => event.type === 'execve' && event.ppid === pid);
    assert.ok(cat !== undefined, 'the exec of cat');
    const files = cat.attrs['locale_files'] as string[];
    const failed = cat.attrs['locale_failed'];
    assert.ok(
      typeof failed === 'number' && failed >= 1,
      `failed opens counted: ${JSON.stringify(cat.attrs)}`,
    );
    assert.equal(cat.attrs['locale_opens'], files.length + failed);
    // C.UTF-8/LC_IDENTIFICATION failed, then C.utf8/LC_IDENTIFICATION was found: folded all the same
    assert.ok(files.includes('/usr/lib/locale/C.utf8/LC_IDENTIFICATION'), JSON.stringify(files));
    const opens = events.filter((event) => event.tgid === cat.tgid && event.type === 'file_open');
    // only an unreadable path stays apart (an open of its own), then the command's own open
    assert.deepEqual(
      opens.filter((event) => event.attrs['path_unreadable'] !== true).map((event) => event.attrs['path']),
      ['/dev/null'],
    );
  });

  it("keeps as events the locale-like opens outside the fold's rule: another directory, other flags", async function () {
    const elsewhere = join(work.path, 'locales');
    // LOCPATH: the C library looks in another directory first, with its own flags; dash reads a
    // compiled locale's file itself (O_RDONLY, no O_CLOEXEC) as the first open after its libraries
    const { pid, events } = await captureShell(
      `LOCPATH=${elsewhere} LC_ALL=C.UTF-8 cat /dev/null; dash -c ': < /usr/lib/locale/C.utf8/LC_CTYPE'`,
    );
    const exec = (comm: string): ParsedEvent => {
      const found = events.find(
        (event) =>
          event.type === 'execve' && event.ppid === pid && event.attrs['path'] === `/usr/bin/${comm}`,
      );
      assert.ok(found !== undefined, `the exec of ${comm}`);
      return found;
    };
    const opensOf = (process: ParsedEvent): string[] =>
      events
        .filter((event) => event.tgid === process.tgid && event.type === 'file_open')
        .map((event) => String(event.attrs['path']));
    const cat = exec('cat');
    const catOpens = opensOf(cat);
    assert.ok(
      catOpens.some((path) => path.startsWith(`${elsewhere}/C.UTF-8/LC_`)),
      `the lookups under LOCPATH are events: ${JSON.stringify(catOpens)}`,
    );
    assert.ok(
      ((cat.attrs['locale_files'] as string[] | undefined) ?? []).every(
        (path) => !path.startsWith(elsewhere),
      ),
      'none of them among the folded files',
    );
    const dash = exec('dash');
    assert.deepEqual(opensOf(dash), ['/usr/lib/locale/C.utf8/LC_CTYPE'], "dash's own read is an event");
    assert.equal(dash.attrs['locale_files'], undefined, 'and not a folded file');
  });

  it('keeps an open of a locale file that the command makes itself an event of its own', async function () {
    // cat's C library reads locale.alias at start (folded), then cat opens it (O_RDONLY, no O_CLOEXEC)
    const alias = '/usr/share/locale/locale.alias';
    const { pid, events } = await captureShell(`LANG=C.UTF-8 cat ${alias} > /dev/null; : < ${alias}`);
    const cat = events.find((event) => event.type === 'execve' && event.ppid === pid);
    assert.ok(cat !== undefined, 'the exec of cat');
    assert.ok(
      (cat.attrs['locale_files'] as string[] | undefined)?.includes(alias),
      'its C library read the alias',
    );
    const opens = (tgid: number | null): ParsedEvent[] =>
      events.filter(
        (event) => event.tgid === tgid && event.type === 'file_open' && event.attrs['path'] === alias,
      );
    assert.equal(opens(cat.tgid).length, 1, "cat's own open of the file is an event");
    assert.equal(opens(pid).length, 1, "the shell's redirection from the file is an event");
  });

  it("folds a thread's repeats with other records between them, in the order of their first times", async function () {
    const rounds = 50;
    const first = join(work.path, 'first');
    const second = join(work.path, 'second');
    writeFileSync(first, 'x\n');
    writeFileSync(second, 'y\n');
    // one thread alternates two opens: no record equals the one before it
    const { pid, events } = await captureShell(
      `i=0; while [ $i -lt ${rounds} ]; do read x < '${first}'; read y < '${second}'; i=$((i+1)); done`,
    );
    const opens = (path: string): ParsedEvent[] =>
      events.filter((event) => event.tgid === pid && event.attrs['path'] === path);
    const ofFirst = opens(first);
    const ofSecond = opens(second);
    // every open is counted, folded or not
    assert.equal(
      ofFirst.map(countOf).reduce((a, b) => a + b, 0),
      rounds,
    );
    assert.equal(
      ofSecond.map(countOf).reduce((a, b) => a + b, 0),
      rounds,
    );
    assert.ok(
      ofFirst.length + ofSecond.length < 2 * rounds,
      `alternating opens folded: ${ofFirst.length + ofSecond.length} events for ${2 * rounds} opens`,
    );
    assert.ok(
      events.indexOf(ofFirst[0]!) < events.indexOf(ofSecond[0]!),
      'the first open of the first file comes first',
    );
    for (const event of [...ofFirst, ...ofSecond])
      if (countOf(event) > 1)
        assert.ok(String(event.attrs['last_time']) >= event.time, 'last_time after time');
  });

  it('keeps a repeated open and its repeat count in one batch when every record fills a batch', async function () {
    const opens = 50;
    const file = join(work.path, 'read-me');
    writeFileSync(file, 'x\n');
    // one record fills a batch: the limit falls between every record and the next
    const { pid, events } = await captureShell(
      `i=0; while [ $i -lt ${opens} ]; do read x < '${file}'; i=$((i+1)); done`,
      { batchRecords: 1, batchBytes: 1, flushMs: 1 },
    );
    const counted = events
      .filter((event) => event.tgid === pid && event.attrs['path'] === file)
      .map(countOf)
      .reduce((a, b) => a + b, 0);
    assert.equal(counted, opens);
  });
});
