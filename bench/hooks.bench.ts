/**
 * Hooks benchmark (`npm run bench:hooks`; `npm run bench:guard` runs it with --short --guard): a
 * Claude PreToolUse posted to POST /v1/hooks/claude on the real daemon, each with its own
 * tool_use_id (so each is judged, answered and stored), beside the gate's own
 * POST /v1/security/evaluate measured by the same client in the same run. Prints one JSON line:
 * requests per second and p50/p99 of each, with 4 keep-alive connections, and the ratio of the
 * hook's rate to the gate's, timed in 4 alternating rounds (each side first in turn; the ratio is
 * the median of the rounds'). The hook's answer comes before its store write: the ratio is what
 * reading the agent's payload, judging its subjects and queueing the write add to the gate.
 *
 * Before that, what storing costs: PreToolUse + PostToolUse pairs as an agent sends them (the Post
 * once the Pre is answered; its answer waits for its write, so once it is answered both are
 * stored), by one agent and by 4 at once, each agent its own run. Per pair: the daemon's CPU
 * (utime + stime of its process, all threads) and the write lag, from the Pre's answer to the Post's
 * (both stored), p50/p99. The gate's CPU per request is measured alike: `pair_cpu` is guarded as
 * the gate's CPU for two requests over a stored pair's.
 *
 * `--guard` fails on any non-200 answer, or when a ratio falls more than 25% below the one
 * recorded in bench/baselines.json.
 */
import { Agent, request as httpRequest } from 'node:http';
import { makeDataDir, removeDir, startDaemon, type RunningDaemon } from '../test/support/daemon.js';
import { benchMain } from './support/bench-main.js';
import { discardDaemon } from './support/discard-daemon.js';
import { describeHost } from './support/host.js';
import { postToolUsePayload, preToolUsePayload } from './support/hook-payload.js';
import { readCpuSeconds } from './support/process-meter.js';
import { guardRatio } from './support/ratio-guard.js';
import { median } from './support/median.js';

const args = new Set(process.argv.slice(2));
const isShort = args.has('--short');
const isGuard = args.has('--guard');
const requests = isShort ? 1_000 : 10_000;
// each hook request is stored after its answer, and the writes queue behind the answers (the hooks
// that arrive while a write runs are stored together: hook-batcher.ts): the warm-up is short
const warmups = isShort ? 200 : 2_000;
const connections = 4;
/** The PreToolUse requests and the gate's, in alternating rounds (each side first in turn). */
const rounds = 4;
// pairs are stored before the next of their agent is sent: a few hundred show the cost
const pairs = isShort ? 200 : 1_000;
const deadlineMs = isShort ? 300_000 : 900_000;
const dataDir = makeDataDir();
const host = describeHost();

const prePayload = (i: number): string => preToolUsePayload(i, 'toolu_bench_');
const gateBody = JSON.stringify({ event_type: 'execve', command: 'ls', args: ['-la', '/work/proj/src'] });

interface Load {
  requests_per_sec: number;
  p50_ms: number;
  p99_ms: number;
  non200: number;
}

/** The rounds of one side as one: the median of each figure, every non-200 answer counted. */
function medianLoad(rounds: readonly Load[]): Load {
  return {
    requests_per_sec: median(rounds.map((one) => one.requests_per_sec)),
    p50_ms: median(rounds.map((one) => one.p50_ms)),
    p99_ms: median(rounds.map((one) => one.p99_ms)),
    non200: rounds.reduce((sum, one) => sum + one.non200, 0),
  };
}

/** Sends `count` POSTs over `connections` keep-alive connections; each latency timed alone. */
async function load(url: string, body: (i: number) => string, count = requests): Promise<Load> {
  const agent = new Agent({ keepAlive: true, maxSockets: connections });
  const latencies: number[] = [];
  let next = 0;
  let non200 = 0;
  const post = (text: string): Promise<number> => postText(agent, url, text);
  const started = performance.now();
  await Promise.all(
    Array.from({ length: connections }, async () => {
      while (next < count) {
        const i = next++;
        const at = performance.now();
        if ((await post(body(i))) !== 200) non200++;
        latencies.push(performance.now() - at);
      }
    }),
  );
  const elapsedMs = performance.now() - started;
  agent.destroy();
  return {
    requests_per_sec: Math.round((count * 1000) / elapsedMs),
    p50_ms: percentile(latencies, 0.5),
    p99_ms: percentile(latencies, 0.99),
    non200,
  };
}

/** POSTs `text` to `url`; resolves with the status once the answer has been read. */
function postText(agent: Agent, url: string, text: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const sent = httpRequest(
      url,
      { method: 'POST', agent, headers: { 'content-type': 'application/json' } },
      (response) => {
        response.resume();
        response.on('end', () => resolve(response.statusCode ?? 0));
      },
    );
    sent.on('error', reject);
    sent.end(text);
  });
}

/** The `p` quantile of `values` (sorted in place), ms to 3 places. */
function percentile(values: number[], p: number): number {
  values.sort((a, b) => a - b);
  return Number(values[Math.min(values.length - 1, Math.floor(values.length * p))]!.toFixed(3));
}

interface PairCost {
  pairs: number;
  agents: number;
  pairs_per_sec: number;
  /** Daemon CPU per stored pair, ms (all its threads). */
  cpu_ms_per_pair: number | null;
  /** From the PreToolUse's answer to the PostToolUse's (both stored then), ms. */
  write_lag_p50_ms: number;
  write_lag_p99_ms: number;
  non200: number;
}

/** `count` PreToolUse + PostToolUse pairs by `agents` agents at once, each in its run `${run}-<agent>`. */
async function storePairs(
  daemon: RunningDaemon,
  run: string,
  agents: number,
  count: number,
): Promise<PairCost> {
  const agent = new Agent({ keepAlive: true, maxSockets: agents });
  const pid = daemon.child.pid!;
  const lags: number[] = [];
  let next = 0;
  let non200 = 0;
  const cpuBefore = readCpuSeconds(pid);
  const started = performance.now();
  await Promise.all(
    Array.from({ length: agents }, async (_, a) => {
      const url = `${daemon.url}/v1/hooks/claude?run=${run}-${a}`;
      while (next < count) {
        const i = next++;
        if ((await postText(agent, url, prePayload(i))) !== 200) non200++;
        const answered = performance.now();
        if ((await postText(agent, url, postToolUsePayload(i, 'toolu_bench_'))) !== 200) non200++;
        lags.push(performance.now() - answered);
      }
    }),
  );
  const elapsedMs = performance.now() - started;
  const cpuAfter = readCpuSeconds(pid);
  agent.destroy();
  return {
    pairs: count,
    agents,
    pairs_per_sec: Math.round((count * 1000) / elapsedMs),
    cpu_ms_per_pair:
      cpuBefore === null || cpuAfter === null
        ? null
        : Number((((cpuAfter - cpuBefore) * 1000) / count).toFixed(2)),
    write_lag_p50_ms: percentile(lags, 0.5),
    write_lag_p99_ms: percentile(lags, 0.99),
    non200,
  };
}

/** The daemon's CPU per request of `count` gate evaluations over `connections` connections, ms. */
async function gateCpu(daemon: RunningDaemon, count: number): Promise<number | null> {
  const pid = daemon.child.pid!;
  const before = readCpuSeconds(pid);
  await load(`${daemon.url}/v1/security/evaluate`, () => gateBody, count);
  const after = readCpuSeconds(pid);
  return before === null || after === null ? null : ((after - before) * 1000) / count;
}

async function runBench(): Promise<string[]> {
  const failures: string[] = [];
  const daemon = await startDaemon({ dataDir });
  try {
    // a warm-up of each, thrown away
    await load(`${daemon.url}/v1/security/evaluate`, () => gateBody, warmups);
    await storePairs(daemon, 'warmup-pairs', connections, pairs / 10);
    const oneAgent = await storePairs(daemon, 'pairs-one', 1, pairs);
    const fourAgents = await storePairs(daemon, 'pairs-four', connections, pairs);
    // the gate's CPU, over 10 requests a pair (a gate request costs ~1/50 of a pair: fewer read
    // too few of /proc's 10 ms ticks)
    const gateCpuMs = await gateCpu(daemon, pairs * 10);
    const pairCpuRatio =
      gateCpuMs === null || oneAgent.cpu_ms_per_pair === null || oneAgent.cpu_ms_per_pair === 0
        ? null
        : Number(((2 * gateCpuMs) / oneAgent.cpu_ms_per_pair).toFixed(4));
    process.stdout.write(
      `${JSON.stringify({
        name: 'hooks.pair.stored',
        one_agent: oneAgent,
        four_agents: fourAgents,
        baseline: {
          name: 'gate.evaluate.http',
          cpu_ms_per_request: gateCpuMs === null ? null : Number(gateCpuMs.toFixed(3)),
        },
        ratio_to_baseline: pairCpuRatio,
        ...host,
      })}\n`,
    );
    if (oneAgent.non200 + fourAgents.non200 > 0)
      failures.push(`hooks: ${oneAgent.non200 + fourAgents.non200} pair answers other than 200`);
    failures.push(
      ...guardRatio(
        'hooks.pair.cpu/gate',
        pairCpuRatio,
        "the gate's CPU for two requests over a stored hook pair's",
      ),
    );
    await load(`${daemon.url}/v1/hooks/claude?run=warmup`, prePayload, warmups);
    // in alternating rounds, each side first in turn, and the median of the rounds' ratios: one
    // burst of a shared host's load fell on whichever side ran alone (gate 589-3,142 requests/s)
    const gates: Load[] = [];
    const hooks: Load[] = [];
    const ratios: number[] = [];
    const perRound = Math.ceil(requests / rounds);
    for (let round = 0; round < rounds; round++) {
      const gateRound = (): Promise<Load> =>
        load(`${daemon.url}/v1/security/evaluate`, () => gateBody, perRound);
      const hookRound = (): Promise<Load> =>
        load(`${daemon.url}/v1/hooks/claude?run=measured`, (i) => prePayload(round * perRound + i), perRound);
      if (round % 2 === 0) {
        gates.push(await gateRound());
        hooks.push(await hookRound());
      } else {
        hooks.push(await hookRound());
        gates.push(await gateRound());
      }
      ratios.push(hooks.at(-1)!.requests_per_sec / Math.max(1, gates.at(-1)!.requests_per_sec));
    }
    const ratio = Number(median(ratios).toFixed(3));
    const hook = medianLoad(hooks);
    const gate = medianLoad(gates);
    const result = {
      name: 'hooks.pre_tool_use.http',
      requests,
      connections,
      rounds,
      ...hook,
      baseline: { name: 'gate.evaluate.http', ...gate },
      ratio_to_baseline: ratio,
      round_ratios: ratios.map((one) => Number(one.toFixed(3))),
    };
    process.stdout.write(`${JSON.stringify({ ...result, ...host })}\n`);
    if (hook.non200 + gate.non200 > 0)
      failures.push(`hooks: ${hook.non200 + gate.non200} answers other than 200`);
    failures.push(
      ...guardRatio('hooks.pre_tool_use.rps/gate', ratio, "PreToolUse requests/s over the gate's"),
    );
  } finally {
    // a stop would wait for the 1,200 hook writes (--short) queued behind the answers: 40-60 s
    await discardDaemon(daemon);
  }
  return failures;
}

await benchMain({
  name: 'hooks.bench',
  deadlineMs,
  isGuard,
  run: runBench,
  cleanup: () => removeDir(dataDir),
});
