/**
 * The connect mark's cost (`npm run bench:connect-mark`): bpf/connect-mark.bpf.c runs on every
 * connect of the host. support/connect-loop.c connects to a loopback listener of its own in a loop,
 * in alternating rounds under the sensor without the mark (the baseline) and with it, in three
 * cases: the listener is not the daemon's port (every other connect on the host: the program's
 * first tests), it is the daemon's port but the connecting process is not bound (the bound maps
 * walked), and it is the daemon's port and the process is bound (its socket bpf_bind'ed to
 * 127.0.0.2; its connects are also captured, so this case carries capture too). Prints one JSON line:
 * nanoseconds a connect (with its accept and closes) took, medians over the rounds, and each case's
 * ratio to the baseline. It needs root, BTF and the sensor built; elsewhere it prints why it skipped.
 */
import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { sensorUnavailable } from '../src/sensor/host-support.js';
import { cgroupMount } from '../src/sensor/capture-filter.js';
import { markTargetOf } from '../src/sensor/connect-mark.js';
import { loadSensorAddon, type NativeSensor } from '../src/sensor/binding.js';
import { makeDataDir, removeDir } from '../test/support/daemon.js';
import { freePort } from '../test/support/free-port.js';
import { benchMain } from './support/bench-main.js';
import { describeHost } from './support/host.js';

const args = new Set(process.argv.slice(2));
const isShort = args.has('--short');
const connects = isShort ? 5_000 : 20_000;
const rounds = isShort ? 3 : 7;
const scratch = makeDataDir();

type Case = 'baseline' | 'other_port' | 'daemon_port_unbound' | 'daemon_port_bound';

/**
 * ns per connect of the loop on `port` (a child: a bound process binds it from its fork). Each loop
 * has a port of its own, so no connect meets a TIME_WAIT the loop before it left.
 */
function connectLoop(binary: string, port: number): number {
  return Number(execFileSync(binary, [String(port), String(connects)], { encoding: 'utf8' }).trim());
}

/** A sensor of the daemon's kind (capture agents), with the mark or without it. */
async function startSensor(withMark: boolean): Promise<NativeSensor> {
  const addon = loadSensorAddon();
  if ('unavailable' in addon) throw new Error(addon.unavailable);
  const root = cgroupMount();
  const sensor = new addon.Sensor(
    {
      selfTgid: process.pid,
      captureBound: true,
      batchRecords: 4096,
      batchBytes: 1 << 20,
      flushMs: 1000,
      ...(withMark && root !== null && { markCgroupRoot: root }),
    },
    () => {},
  );
  await sensor.start();
  return sensor;
}

const median = (values: number[]): number => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)]!;
};

async function run(): Promise<string[]> {
  const why = sensorUnavailable() ?? (cgroupMount() === null ? 'no cgroup v2 is mounted' : undefined);
  if (why !== undefined) {
    process.stdout.write(`${JSON.stringify({ name: 'connect_mark', skipped: why })}\n`);
    return [];
  }
  const binary = join(scratch, 'connect-loop');
  execFileSync('cc', [
    '-O2',
    '-o',
    binary,
    fileURLToPath(new URL('../../bench/support/connect-loop.c', import.meta.url)),
  ]);
  const samples: Record<Case, number[]> = {
    baseline: [],
    other_port: [],
    daemon_port_unbound: [],
    daemon_port_bound: [],
  };
  for (let round = 0; round < rounds; round++) {
    const port = await freePort();
    const plain = await startSensor(false);
    samples.baseline.push(connectLoop(binary, port));
    await plain.close();
    const marking = await startSensor(true);
    if (!marking.markConnects(markTargetOf('127.0.0.1', port + 1)))
      throw new Error('the connect mark did not load');
    samples.other_port.push(connectLoop(binary, port));
    marking.markConnects(markTargetOf('127.0.0.1', port));
    samples.daemon_port_unbound.push(connectLoop(binary, port));
    marking.bind('process', String(process.pid)); // the loop, forked after, is bound from its first instant
    samples.daemon_port_bound.push(connectLoop(binary, port));
    const counts = marking.markCounts();
    await marking.close();
    if (counts?.marked !== connects)
      throw new Error(`the bound loop's connects were not all marked: ${JSON.stringify(counts)}`);
  }
  const ns = Object.fromEntries(
    Object.entries(samples).map(([name, values]) => [name, median(values)]),
  ) as Record<Case, number>;
  const ratio = (name: Case): number => Number((ns[name] / ns.baseline).toFixed(3));
  const line = {
    name: 'connect_mark',
    connects,
    rounds,
    ns_per_connect: ns,
    ratio_other_port: ratio('other_port'),
    ratio_daemon_port_unbound: ratio('daemon_port_unbound'),
    ratio_daemon_port_bound: ratio('daemon_port_bound'),
    host: describeHost(),
  };
  process.stdout.write(`${JSON.stringify(line)}\n`);
  return [];
}

await benchMain({
  name: 'connect-mark.bench',
  deadlineMs: 600_000,
  isGuard: false,
  run,
  cleanup: () => removeDir(scratch),
});
