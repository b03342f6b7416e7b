// run-suites: capture agents only (it loads the sensor addon but starts no sensor: nothing is captured)
import assert from 'node:assert/strict';
import { loadSensorAddon, type NativeSensor, type SensorAddon } from '../../src/sensor/binding.js';

/** The methods binding.ts declares on NativeSensor: the addon must export exactly these. */
const declared: (keyof NativeSensor)[] = [
  'attachUprobes',
  'bind',
  'close',
  'execLoss',
  'execsSince',
  'handOver',
  'loss',
  'markConnects',
  'markCounts',
  'probes',
  'start',
  'stats',
];

describe('the sensor addon binding', function () {
  let addon: SensorAddon;
  before(function () {
    const loaded = loadSensorAddon();
    if ('unavailable' in loaded) {
      process.stderr.write(`      skipped: ${loaded.unavailable}\n`);
      this.skip();
    }
    addon = loaded;
  });

  it('exports the Sensor class with exactly the methods binding.ts declares', function () {
    const methods = Object.getOwnPropertyNames(addon.Sensor.prototype).filter(
      (name) => name !== 'constructor',
    );
    assert.deepEqual(methods.sort(), [...declared].sort());
  });

  it('refuses a mark target of the wrong shape, and marks nothing before the connect mark is loaded', function () {
    const sensor = new addon.Sensor(
      { selfTgid: process.pid, batchRecords: 1, batchBytes: 1, flushMs: 1 },
      () => {},
    );
    const mark = sensor.markConnects.bind(sensor) as (...args: unknown[]) => unknown;
    assert.throws(() => mark(), /markConnects\(target\): target must be an object/);
    assert.throws(() => mark({ port: 1, ip4: 0, ip6: [0, 0] }), /ip6 must be an array of four numbers/);
    assert.equal(sensor.markConnects({ port: 1, ip4: 0, ip6: [0, 0, 0, 0], listensIp6: false }), false);
    assert.equal(sensor.markCounts(), null);
  });

  it('refuses uprobe requests of the wrong shape, and attaches none before the TLS object is loaded', async function () {
    const sensor = new addon.Sensor(
      { selfTgid: process.pid, batchRecords: 1, batchBytes: 1, flushMs: 1 },
      () => {},
    );
    const attach = sensor.attachUprobes.bind(sensor) as (...args: unknown[]) => unknown;
    assert.throws(() => attach('/bin/true'), /binary must be a string and requests an array/);
    assert.throws(
      () => attach('/bin/true', [{ program: 'p', offset: 0 }]),
      /each request needs a string program and where/,
    );
    assert.throws(() => attach('/bin/true', [7]), /each request must be an object/);
    for (const offset of [undefined, -1, '8', 1.5, 2 ** 49])
      assert.throws(
        () => attach('/bin/true', [{ program: 'p', where: 's', retprobe: false, offset }]),
        /a request's offset must be a file offset, an integer from 0 to 2\^48 - 1/,
      );
    const reports = await sensor.attachUprobes('/bin/true', [
      { program: 'provd_ssl_write_enter', where: 'SSL_write', offset: 0, retprobe: false },
    ]);
    assert.deepEqual(reports, [
      {
        program: 'tls',
        probe: 'provd_ssl_write_enter',
        attached: false,
        error: 'the TLS object is not loaded',
      },
    ]);
    await sensor.close();
  });

  it('refuses options of the wrong type, naming the option', function () {
    const construct = (options: unknown, onBatch: unknown): unknown =>
      new (addon.Sensor as unknown as new (options: unknown, onBatch: unknown) => unknown)(options, onBatch);
    assert.throws(() => construct(undefined, undefined), /options must be an object and onBatch a function/);
    assert.throws(() => construct({ selfTgid: 1 }, () => {}), /option batchRecords must be a number/);
    assert.throws(() => construct({ selfTgid: 'me', batchRecords: 1, batchBytes: 1, flushMs: 1 }, () => {}), {
      name: 'TypeError',
      message: 'option selfTgid must be a number',
    });
  });

  it('reports nothing loaded and nothing read before start, and closes twice without harm', async function () {
    const sensor = new addon.Sensor(
      { selfTgid: process.pid, batchRecords: 1, batchBytes: 1, flushMs: 1 },
      () => {},
    );
    assert.deepEqual(sensor.probes(), []);
    assert.deepEqual(sensor.loss(), []);
    assert.equal(sensor.stats().records, 0);
    assert.equal(sensor.execsSince(process.pid, 0), null); // no rings read: no history to give
    assert.equal(sensor.execLoss(), 0);
    assert.equal(sensor.handOver(), 0); // no rings read: no batch to hand over
    assert.throws(
      () => (sensor.execsSince as (...args: unknown[]) => unknown)('1', 0),
      /pid and startTicks must be numbers/,
    );
    await sensor.close();
    await sensor.close();
    assert.throws(() => void sensor.start(), /failed to start: the sensor was started or closed already/);
  });
});
