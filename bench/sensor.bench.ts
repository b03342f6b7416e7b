/**
 * Sensor benchmark (`npm run bench:sensor`; `npm run bench:guard` runs it with --short --guard): an
 * exec-, open- and connect-heavy workload (support/sensor-workload.c: two processes, each round one
 * exec of /bin/true, four opens of one file, one refused loopback connect) recorded through
 * POST /v1/record, against a daemon with its sensor off (the baseline) and one with it on, in
 * alternating rounds of one run. Each daemon records the workload twice: right after it started
 * (`cold`: its start-up work and the compiling of the sensor's path beside the workload), then once
 * its start-up has settled (15 s with --short, 30 s otherwise; with --guard, once the daemon idles),
 * as a daemon that has been running meets a workload. Prints one JSON line per result:
 *
 * - `sensor.workload`: the settled workload's wall time with the sensor off and on (median of the
 *   rounds), and the overhead as their ratio (target <= 1.10, next 1.03), with the cold run's apart;
 * - `sensor.completeness`: per category, the events the store holds of the workload's own actions,
 *   beside the workload's own count, bpftrace's count of the same syscalls on the same run (when
 *   bpftrace is installed; it runs in both arms, so its own cost weighs on each alike), and the loss
 *   the sensor counted (target: every action stored, or its loss counted).
 *
 * - `sensor.ordinary_rate`: a daemon with the sensor on, CPU percent of one core on a quiet host and
 *   beside a shell loop of `/bin/true; sleep 0.05` (support/ordinary-rate.ts; 10 s phases with
 *   --short, 60 s otherwise), against the targets 0.5% and 3%, and the events it stored; the phases
 *   start after the daemon's start-up work (15 s with --short, 30 s otherwise), reported apart.
 *   `--ordinary-only` runs just this phase, `--workload-only` (and `--guard`, since nothing here is
 *   guarded) all but it.
 *
 * It needs root, BTF and the sensor built (.ci/setup); elsewhere it prints why it skipped. `--guard`
 * fails when an action is neither stored nor counted as lost, or when the workload's time with the
 * sensor off over on falls more than 25% below the ratio recorded in bench/baselines.json.
 */
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { DuckDBInstance, VARCHAR } from '@duckdb/node-api';
import { probeRecordCgroupRoot } from '../src/provenance/record/cgroup-root.js';
import { sensorUnavailable } from '../src/sensor/host-support.js';
import { list, readRows, sql } from '../src/store/sql.js';
import { typeCode } from '../src/model/codes.js';
import { makeDataDir, removeDir, startDaemon } from '../test/support/daemon.js';
import { awaitIdle } from './support/await-idle.js';
import { benchMain } from './support/bench-main.js';
import { guardRatio } from './support/ratio-guard.js';
import { describeHost } from './support/host.js';
import { loopTarget, measureOrdinaryRate, quietTarget, settleSeconds } from './support/ordinary-rate.js';
import { withBodyType } from '../test/support/http.js';

const args = new Set(process.argv.slice(2));
const isShort = args.has('--short');
const isGuard = args.has('--guard');
const isOrdinaryOnly = args.has('--ordinary-only');
const isWorkloadOnly = args.has('--workload-only');
const ordinarySeconds = isShort ? 10 : 60;
const workers = 2;
/**
 * With --short, long enough (about 1.5 s) that the daemon's handling of the sensor's batches (which
 * linger up to 1 s) falls within the workload: 500 rounds ended before it and measured the kernel side.
 */
const roundsPerWorker = isShort ? 2_000 : 5_000;
const opensPerRound = 4;
const rounds = isShort ? 1 : 3;
const deadlineMs = isShort ? 120_000 : 900_000;
/**
 * `--guard`: the start-up has settled once the daemon used under this share of a core over a second
 * (it idles at 1% with the sensor on, support/ordinary-rate.ts), 15 s after its start at the latest.
 */
const guardIdleShare = 0.1;
/** Issue 24's target for the workload's time with the sensor on over off, and the goal after it. */
const overheadTarget = 1.1;
const nextOverheadTarget = 1.03;
/** The guard: an order-of-magnitude regression, not noise (the sensor costs ~1.5x here today). */
/** A port nothing listens on: every connect is refused, on loopback only. */
const refusedPort = 9;
const token = 'sensor-bench';
const host = describeHost();
const scratch = makeDataDir();

interface WorkloadCounts {
  execs: number;
  opens: number;
  connects: number;
  seconds: number;
}

type Category = 'execs' | 'opens' | 'connects';
const categories: Category[] = ['execs', 'opens', 'connects'];

/** Why the sensor cannot run here, or undefined. */
function unavailable(): string | undefined {
  const why = sensorUnavailable();
  if (why !== undefined) return why;
  const cgroups = probeRecordCgroupRoot();
  if (cgroups.status !== 'ok') return `recorded commands get no cgroup: ${cgroups.message}`;
  return undefined;
}

/** Compiles the workload into the scratch dir. */
function buildWorkload(): string {
  const binary = join(scratch, 'sensor-workload');
  const source = fileURLToPath(new URL('../../bench/support/sensor-workload.c', import.meta.url));
  execFileSync('cc', ['-O2', '-o', binary, source]);
  return binary;
}

/** bpftrace counting the workload's syscalls, once it has attached; undefined when it is not installed. */
async function startBpftrace(file: string): Promise<ChildProcess | undefined> {
  try {
    execFileSync('bpftrace', ['--version'], { stdio: 'ignore' });
  } catch {
    return undefined;
  }
  const program = `
    tracepoint:sched:sched_process_exec /comm == "true"/ { @execs = count(); }
    tracepoint:syscalls:sys_enter_openat /comm == "sensor-workload" && str(args->filename) == "${file}"/ { @opens = count(); }
    tracepoint:syscalls:sys_enter_connect /comm == "sensor-workload"/ { @connects = count(); }`;
  // bpftrace finds tracepoints through tracefs, which a fresh host may not have mounted yet (the
  // sensor mounts it when it loads, but the arm without the sensor runs first)
  if (!existsSync('/sys/kernel/tracing/events') && process.getuid?.() === 0)
    execFileSync('mount', ['-t', 'tracefs', 'tracefs', '/sys/kernel/tracing'], { stdio: 'inherit' });
  const child = spawn('bpftrace', ['-e', program], { stdio: ['ignore', 'pipe', 'pipe'] });
  await new Promise<void>((resolve, reject) => {
    child.stdout.on('data', (chunk: Buffer) => {
      if (chunk.toString().includes('Attaching')) resolve();
    });
    child.once('exit', (code) => reject(new Error(`bpftrace exited with ${code} before attaching`)));
  });
  return child;
}

/** Stops bpftrace and reads its counts. */
async function stopBpftrace(child: ChildProcess): Promise<Partial<Record<Category, number>>> {
  let output = '';
  child.stdout!.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const exited = new Promise((resolve) => child.once('exit', resolve));
  child.kill('SIGINT');
  await exited;
  const counts: Partial<Record<Category, number>> = {};
  for (const [, name, value] of output.matchAll(/@(\w+): (\d+)/g)) counts[name as Category] = Number(value);
  return counts;
}

/**
 * The workload recorded twice against one daemon with the sensor on or off: `cold` right after it
 * started (its code not yet compiled for the sensor's path, its start-up work still running), then
 * `warm` once the start-up has settled, as a daemon that has been running meets a workload.
 */
async function runOnce(binary: string, sensor: boolean, round: number) {
  const dataDir = join(scratch, `${sensor ? 'on' : 'off'}-${round}`);
  const work = join(dataDir, 'work');
  mkdirSync(work, { recursive: true, mode: 0o700 }); // the data dir others may not enter
  const file = join(work, 'workload-file');
  const startedMs = Date.now();
  const daemon = await startDaemon({ dataDir, sensor, authToken: token });
  const tracer = await startBpftrace(file); // in both arms: its own cost weighs on each alike
  const runs = {
    cold: `sensor-bench-${sensor ? 'on' : 'off'}-${round}-cold`,
    warm: `sensor-bench-${sensor ? 'on' : 'off'}-${round}`,
  };
  let counts: Record<keyof typeof runs, WorkloadCounts>;
  let capture: unknown;
  let exitCode: number | null = null;
  try {
    const cold = await recordWorkload(daemon.url, binary, runs.cold, work);
    const settledBy = startedMs + settleSeconds(isShort) * 1000;
    if (isGuard) {
      const waited = await awaitIdle(daemon.child.pid!, guardIdleShare, settledBy);
      process.stderr.write(`sensor.bench: the ${sensor ? 'on' : 'off'} arm settled in ${waited} ms\n`);
    } else if (settledBy > Date.now())
      await new Promise((resolve) => setTimeout(resolve, settledBy - Date.now()));
    counts = { cold, warm: await recordWorkload(daemon.url, binary, runs.warm, work) };
    if (sensor)
      capture = ((await (await fetch(`${daemon.url}/v1/health`)).json()) as { native_capture: unknown })
        .native_capture;
  } finally {
    exitCode = await daemon.stop(); // the sensor hands over what its rings hold before the store closes
  }
  const warnings = daemon.logs.filter((entry) => entry['level'] !== 'info');
  const traced = tracer === undefined ? undefined : await stopBpftrace(tracer);
  const path = join(dataDir, 'provd.duckdb');
  const stored = sensor
    ? {
        cold: await countStored(path, runs.cold, file, Object.values(runs)),
        warm: await countStored(path, runs.warm, file, Object.values(runs)),
      }
    : undefined;
  return {
    counts,
    traced,
    stored,
    capture,
    exitCode,
    warnings,
  };
}

/** Records one run of the workload through POST /v1/record; its own counts and time. */
async function recordWorkload(
  url: string,
  binary: string,
  run: string,
  work: string,
): Promise<WorkloadCounts> {
  const answer = await fetch(`${url}/v1/record`, {
    method: 'POST',
    headers: withBodyType('/v1/record', { authorization: `Bearer ${token}` }),
    body: JSON.stringify({
      run_id: run,
      tool_call_id: `${run}-call`,
      command: binary,
      args: [workers, roundsPerWorker, opensPerRound, work, refusedPort].map(String),
      cwd: work,
      timeout_ms: 600_000,
    }),
  });
  const body = (await answer.json()) as { exit_code?: number; stdout?: { text: string } };
  if (answer.status !== 200 || body.exit_code !== 0)
    throw new Error(`the workload failed: ${JSON.stringify(body)}`);
  return JSON.parse(body.stdout!.text) as WorkloadCounts;
}

/**
 * Events the store holds of `run`'s own actions, and the loss the sensor counted; the opens of `file`
 * stored outside every one of `workloadRuns` (spooled, or attributed elsewhere).
 */
async function countStored(path: string, run: string, file: string, workloadRuns: string[]) {
  const instance = await DuckDBInstance.create(path, { access_mode: 'READ_ONLY' });
  const connection = await instance.connect();
  try {
    // an event folded from repeats (attrs.count: native/src/record-folder.h) counts as that many
    const [row] = await readRows<{ execs: bigint; opens: bigint; connects: bigint; records: bigint }>(
      connection,
      sql`SELECT
            count(*) FILTER (type = ${typeCode('execve')} AND json_extract_string(attrs, '$.path') = '/bin/true') AS execs,
            coalesce(sum(repeats) FILTER (type IN (${typeCode('file_open')}, ${typeCode('file_write')})
              AND json_extract_string(attrs, '$.path') = ${file}), 0) AS opens,
            coalesce(sum(repeats) FILTER (type = ${typeCode('network_connect')}
              AND json_extract_string(attrs, '$.dst_port') = ${String(refusedPort)}), 0) AS connects,
            count(*) FILTER (type <> ${typeCode('capture_loss')}) AS records
          FROM (SELECT *, coalesce(CAST(json_extract(attrs, '$.count') AS BIGINT), 1) AS repeats
                FROM events WHERE run_id = ${run})`,
    );
    // records of the sensor the decoder refused (counted as invalid in producer health)
    const [refused] = await readRows<{ refused: string[] | null }>(
      connection,
      sql`SELECT list(source || ':' || counter || '=' || value) AS refused FROM producer_counters`,
    );
    // the workload's opens stored outside its run: spooled, or attributed elsewhere
    const [outside] = await readRows<{ opens: bigint }>(
      connection,
      sql`SELECT count(*) AS opens FROM events
          WHERE (run_id IS NULL OR run_id NOT IN (SELECT unnest(${list(workloadRuns, VARCHAR)})))
            AND json_extract_string(attrs, '$.path') = ${file}`,
    );
    const [loss] = await readRows<{ lost: bigint | null }>(
      connection,
      sql`SELECT sum(lost_events) AS lost FROM coverage_gaps WHERE kind LIKE 'sensor_%'`,
    );
    return {
      execs: Number(row!.execs),
      opens: Number(row!.opens),
      connects: Number(row!.connects),
      events_stored: Number(row!.records),
      lost: Number(loss!.lost ?? 0n),
      opens_outside_run: Number(outside!.opens),
      counters: refused!.refused,
    };
  } finally {
    connection.closeSync();
    instance.closeSync();
  }
}

const median = (values: number[]): number =>
  [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;

async function run(): Promise<string[]> {
  const why = unavailable();
  if (why !== undefined) {
    process.stdout.write(JSON.stringify({ name: 'sensor', skipped: why, ...host }) + '\n');
    return [];
  }
  const failures: string[] = [];
  if (!isOrdinaryOnly) failures.push(...(await measureWorkload()));
  // the ordinary rate is measured against targets, never guarded: a guarded run (bench:guard) skips
  // its 15 s of start-up and two 10 s phases
  if (isWorkloadOnly || (isGuard && !isOrdinaryOnly)) return failures;
  const settle = settleSeconds(isShort);
  const rates: Record<string, { quiet: number; loop: number }> = {};
  // the guard measures the default mode only: host mode doubles the phase and guards nothing
  const modes = isGuard ? (['agents'] as const) : (['agents', 'host'] as const);
  for (const mode of modes) {
    const ordinary = await measureOrdinaryRate(
      join(scratch, `ordinary-${mode}`),
      ordinarySeconds,
      settle,
      mode,
    );
    rates[mode] = { quiet: ordinary.quiet.cpu_percent, loop: ordinary.loop.cpu_percent };
    process.stdout.write(
      JSON.stringify({
        name: 'sensor.ordinary_rate',
        capture: mode,
        seconds: ordinarySeconds,
        startup_seconds: settle,
        startup_cpu_percent: ordinary.startup.cpu_percent,
        quiet_cpu_percent: ordinary.quiet.cpu_percent,
        loop_cpu_percent: ordinary.loop.cpu_percent,
        events_stored: ordinary.events_stored,
        threads: { quiet: ordinary.quiet.threads, loop: ordinary.loop.threads },
        // the targets are the default mode's; host mode is measured beside it for comparison
        target: { quiet_cpu_percent: quietTarget, loop_cpu_percent: loopTarget },
        target_met: ordinary.quiet.cpu_percent <= quietTarget && ordinary.loop.cpu_percent <= loopTarget,
        ...host,
      }) + '\n',
    );
  }
  if (rates['host'] === undefined) return failures;
  process.stdout.write(
    JSON.stringify({
      name: 'sensor.capture_modes',
      // what the default mode costs beside the loop, over what capturing the whole host costs
      loop_agents_over_host: Number((rates['agents']!.loop / Math.max(rates['host'].loop, 0.01)).toFixed(2)),
      quiet_agents_over_host: Number(
        (rates['agents']!.quiet / Math.max(rates['host'].quiet, 0.01)).toFixed(2),
      ),
      ...host,
    }) + '\n',
  );
  return failures;
}

/** The recorded workload, sensor off and on in alternating rounds; what it finds wrong. */
async function measureWorkload(): Promise<string[]> {
  const binary = buildWorkload();
  const seconds = {
    on: [] as number[],
    off: [] as number[],
    coldOn: [] as number[],
    coldOff: [] as number[],
  };
  const failures: string[] = [];
  let last: Awaited<ReturnType<typeof runOnce>> | undefined;
  for (let round = 0; round < rounds; round++) {
    for (const sensor of round % 2 === 0 ? [false, true] : [true, false]) {
      const result = await runOnce(binary, sensor, round);
      seconds[sensor ? 'on' : 'off'].push(result.counts.warm.seconds);
      seconds[sensor ? 'coldOn' : 'coldOff'].push(result.counts.cold.seconds);
      for (const category of categories) {
        const traced = result.traced?.[category];
        const counted = result.counts.cold[category] + result.counts.warm[category];
        if (traced !== undefined && traced !== counted)
          failures.push(`${category}: bpftrace counted ${traced}, the workload ${counted}`);
      }
      if (!sensor) continue;
      last = result;
      const { counts, stored, traced, capture, exitCode, warnings } = result;
      for (const run of ['cold', 'warm'] as const)
        for (const category of categories) {
          const missing = counts[run][category] - stored![run][category];
          if (missing > stored![run].lost)
            failures.push(
              `${category}: ${missing} of ${counts[run][category]} neither stored nor counted as lost (${run} run)`,
            );
        }
      process.stdout.write(
        JSON.stringify({
          name: 'sensor.completeness',
          round,
          workload: counts,
          stored,
          bpftrace: traced ?? null, // both runs
          capture, // the sensor's own report right after the workload
          daemon_exit_code: exitCode,
          daemon_warnings: warnings,
          ...host,
        }) + '\n',
      );
    }
  }
  const off = median(seconds.off);
  const on = median(seconds.on);
  const overhead = Math.round((on / off) * 1000) / 1000;
  const coldOverhead = Math.round((median(seconds.coldOn) / median(seconds.coldOff)) * 1000) / 1000;
  const actions = last!.counts.warm;
  process.stdout.write(
    JSON.stringify({
      name: 'sensor.workload',
      rounds,
      execs_per_sec: Math.round(actions.execs / on),
      opens_per_sec: Math.round(actions.opens / on),
      connects_per_sec: Math.round(actions.connects / on),
      seconds_on: on,
      baseline: { name: 'sensor.off', seconds: off, execs_per_sec: Math.round(actions.execs / off) },
      ratio_to_baseline: overhead,
      // the same workload on a daemon just started (its start-up work and compiling beside it)
      cold: {
        seconds_on: median(seconds.coldOn),
        seconds_off: median(seconds.coldOff),
        ratio_to_baseline: coldOverhead,
      },
      target: { ratio_to_baseline: overheadTarget, next: nextOverheadTarget },
      target_met: overhead <= overheadTarget,
      ...host,
    }) + '\n',
  );
  failures.push(
    ...guardRatio('sensor.workload.off/on', off / on, "the workload's time with the sensor off over on"),
  );
  return failures;
}

await benchMain({ name: 'sensor.bench', deadlineMs, isGuard, run, cleanup: () => removeDir(scratch) });
