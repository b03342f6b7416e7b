/**
 * Hook client benchmark (`npm run bench:hook-client`; `npm run bench:guard` runs it with --short
 * --guard): the native provd-hook answering a Claude PreToolUse from the real daemon's hook socket,
 * from spawn to its answer, beside `cat > /dev/null` (a hook that only reads its payload), each
 * spawned the same way agents spawn hooks (`/bin/sh -c COMMAND`, the payload on stdin), in
 * alternation so a shared host's load falls on both alike. Each PreToolUse has its own tool_use_id,
 * so each is judged, answered and stored. Prints one JSON line: p50/p99 of both, what the client
 * adds (p50 - p50, p99 - p99), and the ratio cat p50 / client p50.
 *
 * The hooks are spawned by a stand-in for the agent (a node script named `claude-bench-agent.mjs`):
 * the daemon answers a hook only from a process that runs the agent (docs/agents.md, "Who may send
 * a hook"), and refuses one the bench itself would spawn.
 *
 * `--guard` fails on an answer other than `{}`, or when the ratio falls more than 25% below the
 * one recorded in bench/baselines.json. --short: 150 of each (else 600). `--sensor` (root) runs
 * the daemon with the eBPF sensor, so each hook after the first is also checked against its
 * processes' exec events (docs/agents.md, "What the sensor tells"); the line then counts them.
 */
import { spawn } from 'node:child_process';
import { existsSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { hookClientPath, hookSocketName } from '../src/agents/hook-command.js';
import { makeDataDir, removeDir, startDaemon } from '../test/support/daemon.js';
import { benchMain } from './support/bench-main.js';
import { describeHost } from './support/host.js';
import { percentileMs } from './support/ingest-http.js';
import { preToolUsePayload } from './support/hook-payload.js';
import { guardRatio } from './support/ratio-guard.js';

const args = new Set(process.argv.slice(2));
const isShort = args.has('--short');
const isGuard = args.has('--guard');
const withSensor = args.has('--sensor');
const spawns = isShort ? 150 : 600;
const dataDir = makeDataDir();

const payload = (i: number): string => preToolUsePayload(i, 'toolu_client_bench_');

/**
 * The stand-in agent: spawns `/bin/sh -c COMMAND` with each payload on stdin, `cat > /dev/null`
 * and the client in alternation, and prints the ms from spawn to exit of each and the client's answers.
 */
const agentSource = `import { spawn } from 'node:child_process';
const [client, count, payloads] = [process.argv[2], Number(process.argv[3]), JSON.parse(process.env.BENCH_PAYLOADS)];
function timed(command, input) {
  const started = performance.now();
  const child = spawn('/bin/sh', ['-c', command], { stdio: ['pipe', 'pipe', 'ignore'] });
  let stdout = '';
  child.stdout.on('data', (chunk) => (stdout += chunk.toString()));
  child.stdin.end(input);
  return new Promise((resolve, reject) => {
    child.on('error', reject);
    child.on('close', () => resolve({ ms: performance.now() - started, stdout }));
  });
}
const cat = [], hook = [], answers = [];
for (let i = 0; i < count; i++) {
  cat.push((await timed('cat > /dev/null', payloads[i])).ms);
  const answered = await timed(client, payloads[i]);
  hook.push(answered.ms);
  answers.push(answered.stdout);
}
process.stdout.write(JSON.stringify({ cat, hook, answers }));
`;

/** Runs the stand-in agent over `count` payloads; resolves with its timings and answers. */
function runAgent(
  client: string,
  count: number,
): Promise<{ cat: number[]; hook: number[]; answers: string[] }> {
  const script = join(dataDir, 'claude-bench-agent.mjs');
  writeFileSync(script, agentSource);
  const payloads = Array.from({ length: count }, (_, i) => payload(i));
  const child = spawn(process.execPath, [script, client, String(count)], {
    env: { ...process.env, BENCH_PAYLOADS: JSON.stringify(payloads) },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  let stdout = '';
  child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
  return new Promise((resolve, reject) => {
    child.on('error', reject);
    child.on('close', (code) =>
      code === 0
        ? resolve(JSON.parse(stdout) as never)
        : reject(new Error(`the stand-in agent exited ${code}`)),
    );
  });
}

async function runBench(): Promise<string[]> {
  if (!existsSync(hookClientPath()))
    return [`hook-client: ${hookClientPath()} is not built (npm run build:hook-client)`];
  const daemon = await startDaemon({ dataDir, sensor: withSensor });
  const failures: string[] = [];
  try {
    const client = `${hookClientPath()} claude --socket ${join(dataDir, hookSocketName)}`;
    const run = await runAgent(client, spawns + 20);
    const wrong = run.answers.filter((answer) => answer !== '{}').length;
    // the first 20 of each warm up
    const cat = run.cat.slice(20);
    const hook = run.hook.slice(20);
    const ratio = Number((percentileMs(cat, 50) / percentileMs(hook, 50)).toFixed(3));
    const result = {
      name: 'hook_client.pre_tool_use',
      spawns,
      client_p50_ms: percentileMs(hook, 50),
      client_p99_ms: percentileMs(hook, 99),
      baseline: { name: 'cat > /dev/null', p50_ms: percentileMs(cat, 50), p99_ms: percentileMs(cat, 99) },
      added_p50_ms: Number((percentileMs(hook, 50) - percentileMs(cat, 50)).toFixed(3)),
      added_p99_ms: Number((percentileMs(hook, 99) - percentileMs(cat, 99)).toFixed(3)),
      wrong_answers: wrong,
      sensor: withSensor,
      // how many hooks the exec history confirmed, refused and could not check
      exec_checks: withSensor ? await execChecks(daemon.url) : null,
      ratio_to_baseline: ratio,
      ...describeHost(),
    };
    process.stdout.write(`${JSON.stringify(result)}\n`);
    if (wrong > 0) failures.push(`hook-client: ${wrong} answers other than {}`);
    failures.push(
      ...guardRatio('hook_client.spawn_p50/cat', ratio, "cat > /dev/null's p50 over the client's"),
    );
  } finally {
    await daemon.stop();
  }
  return failures;
}

/** Health's counts of the hook verdicts the sensor's exec events checked. */
async function execChecks(url: string): Promise<Record<string, number>> {
  const health = (await (await fetch(`${url}/v1/health`)).json()) as {
    checks: { hooks: Record<string, number> };
  };
  const { exec_confirmed, exec_refused, exec_unchecked } = health.checks.hooks;
  return { confirmed: exec_confirmed!, refused: exec_refused!, unchecked: exec_unchecked! };
}

await benchMain({
  name: 'hook-client.bench',
  deadlineMs: isShort ? 180_000 : 600_000,
  isGuard,
  run: runBench,
  cleanup: () => removeDir(dataDir),
});
