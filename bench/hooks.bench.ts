/**
 * Hooks benchmark (`npm run bench:hooks`; `npm run bench:guard` runs it with --short --guard): a
 * Claude PreToolUse posted to POST /v1/hooks/claude on the real daemon, each with its own
 * tool_use_id (so each is judged, answered and stored), beside the gate's own
 * POST /v1/security/evaluate measured by the same client in the same run. Prints one JSON line:
 * requests per second and p50/p99 of each, with 4 keep-alive connections, and the ratio of the
 * hook's rate to the gate's. The hook's answer comes before its store write: the ratio is what
 * reading the agent's payload, judging its subjects and queueing the write add to the gate.
 *
 * `--guard` fails on any non-200 answer, or when the ratio falls more than 25% below the one
 * recorded in bench/baselines.json.
 */
import { Agent, request as httpRequest } from 'node:http';
import { makeDataDir, removeDir, startDaemon } from '../test/support/daemon.js';
import { benchMain } from './support/bench-main.js';
import { discardDaemon } from './support/discard-daemon.js';
import { describeHost } from './support/host.js';
import { preToolUsePayload } from './support/hook-payload.js';
import { guardRatio } from './support/ratio-guard.js';

const args = new Set(process.argv.slice(2));
const isShort = args.has('--short');
const isGuard = args.has('--guard');
const requests = isShort ? 1_000 : 10_000;
// each hook request is stored in a transaction of its own, after its answer, and the writes queue
// behind the answers (4,000 writes under --short took over 300 s at load 20): the warm-up is short
const warmups = isShort ? 200 : 2_000;
const connections = 4;
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

/** Sends `count` POSTs over `connections` keep-alive connections; each latency timed alone. */
async function load(url: string, body: (i: number) => string, count = requests): Promise<Load> {
  const agent = new Agent({ keepAlive: true, maxSockets: connections });
  const latencies: number[] = [];
  let next = 0;
  let non200 = 0;
  const post = (text: string): Promise<number> =>
    new Promise((resolve, reject) => {
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
  latencies.sort((a, b) => a - b);
  const at = (p: number): number => Number(latencies[Math.floor(latencies.length * p)]!.toFixed(3));
  return {
    requests_per_sec: Math.round((count * 1000) / elapsedMs),
    p50_ms: at(0.5),
    p99_ms: at(0.99),
    non200,
  };
}

async function runBench(): Promise<string[]> {
  const failures: string[] = [];
  const daemon = await startDaemon({ dataDir });
  try {
    // a warm-up of each, thrown away
    await load(`${daemon.url}/v1/security/evaluate`, () => gateBody, warmups);
    await load(`${daemon.url}/v1/hooks/claude?run=warmup`, prePayload, warmups);
    const gate = await load(`${daemon.url}/v1/security/evaluate`, () => gateBody);
    const hook = await load(`${daemon.url}/v1/hooks/claude?run=measured`, prePayload);
    const ratio = Number((hook.requests_per_sec / Math.max(1, gate.requests_per_sec)).toFixed(3));
    const result = {
      name: 'hooks.pre_tool_use.http',
      requests,
      connections,
      ...hook,
      baseline: { name: 'gate.evaluate.http', ...gate },
      ratio_to_baseline: ratio,
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
