/**
 * HTTP load benchmark (`npm run bench`; `npm run bench:guard` adds --short --guard): a bare
 * uWebSockets.js hello server as the baseline, then the real daemon's /v1/live and /v1/health, each
 * under autocannon on loopback. Prints one JSON line per result on stdout. `--guard` fails the run on
 * any error or non-2xx answer, or when an endpoint's ratio to the baseline falls more than 25% below
 * the one recorded in bench/baselines.json (support/ratio-guard.ts).
 */
import { fileURLToPath } from 'node:url';
import {
  makeDataDir,
  removeDir,
  spawnServer,
  startDaemon,
  type RunningServer,
} from '../test/support/daemon.js';
import { describeHost } from './support/host.js';
import { benchMain } from './support/bench-main.js';
import { guardRatio } from './support/ratio-guard.js';
import { measureHttp, type HttpLoad, type LoadPlan } from './support/measure-http.js';
import { readPeakRssBytes, resetPeakRss } from './support/peak-rss.js';

/** One line of output: a measured run plus the server's peak RSS, the ratio and the host. */
interface BenchResult extends HttpLoad {
  name: string;
  peak_rss_bytes: number | null;
  ratio_to_baseline: number | null;
}

const args = new Set(process.argv.slice(2));
const isShort = args.has('--short');
const isGuard = args.has('--guard');
const plan: LoadPlan = { warmupS: isShort ? 1 : 2, durationS: isShort ? 2 : 10, connections: 50 };
/** Hard bound on the whole run, server start and stop included; past it the watchdog kills everything. */
const deadlineMs = isShort ? 45_000 : 120_000;
/** The bare uWS baseline server, compiled beside this file. */
const helloPath = fileURLToPath(new URL('./uws-hello.js', import.meta.url));
const host = describeHost();
const dataDir = makeDataDir();

/** Measures the baseline, then the daemon's endpoints, printing each result as it lands. */
async function runBench(): Promise<BenchResult[]> {
  const hello = await spawnServer(helloPath);
  const baseline = await measureServer('http.uws_hello', hello, '/', null).finally(() => hello.stop());
  const results = [baseline];
  const daemon = await startDaemon({ dataDir });
  try {
    results.push(await measureServer('http.live', daemon, '/v1/live', baseline.requests_per_sec));
    results.push(await measureServer('http.health', daemon, '/v1/health', baseline.requests_per_sec));
  } finally {
    const code = await daemon.stop();
    if (code !== 0)
      process.stderr.write(`http.bench: warning: the daemon exited with code ${code} on SIGTERM\n`);
  }
  return results;
}

/** Loads one path of a running server and prints the result line. */
async function measureServer(
  name: string,
  server: RunningServer,
  path: string,
  baselineRps: number | null,
): Promise<BenchResult> {
  const pid = server.child.pid!;
  resetPeakRss(pid);
  const load = await measureHttp(server.url + path, plan);
  const { errors, non2xx, duration_s, connections, ...speed } = load;
  const peak_rss_bytes = readPeakRssBytes(pid);
  const ratio_to_baseline = baselineRps === null ? 1 : computeRatio(speed.requests_per_sec, baselineRps);
  const result = {
    name,
    ...speed,
    peak_rss_bytes,
    errors,
    non2xx,
    duration_s,
    connections,
    ratio_to_baseline,
  };
  process.stdout.write(`${JSON.stringify({ ...result, ...host })}\n`);
  return result;
}

/** Lists why the results fail the guard: errors, non-2xx answers, or a ratio below its recorded one. */
function findGuardFailures([, ...daemon]: BenchResult[]): string[] {
  const failures: string[] = [];
  for (const { name, errors, non2xx, ratio_to_baseline: ratio } of daemon) {
    if (errors > 0 || non2xx > 0) failures.push(`${name}: ${errors} errors and ${non2xx} non-2xx answers`);
    failures.push(...guardRatio(`${name}.rps/uws_hello`, ratio, 'requests/s over the bare uWS server'));
  }
  return failures;
}

/** Divides rps by the baseline's to three decimals; null when the baseline served nothing. */
function computeRatio(rps: number, baselineRps: number): number | null {
  return baselineRps > 0 ? Number((rps / baselineRps).toFixed(3)) : null;
}

await benchMain({
  name: 'http.bench',
  deadlineMs,
  isGuard,
  run: async () => findGuardFailures(await runBench()),
  cleanup: () => removeDir(dataDir),
});
