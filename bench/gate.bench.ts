/**
 * Gate benchmark (`npm run bench:gate`; `npm run bench:guard` runs it with --short --guard): the
 * policy preflight in process and over HTTP. Prints one JSON line per result:
 *
 * - `gate.in_process`: evaluations per second and the p50/p99 of one evaluation with the built-in
 *   policy, over a mix of proposed actions (most allowed, each rule hit), beside JSON.parse of the
 *   same actions (the least a caller pays to hand the engine its input) as the baseline;
 * - `gate.http`: POST /v1/security/evaluate on the real daemon under autocannon, beside a bare
 *   uWebSockets.js hello server measured in the same run;
 * - `gate.tool_call`: a typical agent tool call judged by what it names (`toolCallSubjects` then
 *   `decideSubjects`: the shell read, each subject evaluated, the most severe kept), µs per call and
 *   its p50/p99, beside `policy.evaluate` of one subject (the gate's cost before it read commands);
 *   every PreToolUse pays it. Printed, not guarded, so not measured under `--guard` (`--subjects`:
 *   this one alone);
 * - `gate.ingest`: the ingest benchmark's native workload posted to a daemon that judges every
 *   event with the built-in policy, beside one whose policy has no rule (the baseline), in
 *   alternating rounds (target: >= 0.9x).
 *
 * `--guard` fails on any error or non-2xx answer, or when a ratio (the engine to JSON.parse, the HTTP
 * gate to the bare server, ingest with the policy to ingest without) falls more than 25% below the
 * one recorded in bench/baselines.json.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { defaultPolicy } from '../src/security/policy/default-policy.js';
import type { PolicySubject } from '../src/security/policy/policy.js';
import { PolicyEngine } from '../src/security/policy/policy-engine.js';
import { decideSubjects } from '../src/security/policy/most-severe.js';
import { toolCallSubjects } from '../src/security/policy/tool-subjects.js';
import { makeDataDir, removeDir, spawnServer, startDaemon } from '../test/support/daemon.js';
import { benchMain } from './support/bench-main.js';
import { discardDaemon } from './support/discard-daemon.js';
import { guardRatio } from './support/ratio-guard.js';
import { bindRuns, HttpClient, postBodies } from './support/ingest-http.js';
import { renderChunks, workloadEpochS, workloadRuns } from './support/ingest-workload.js';
import { describeHost } from './support/host.js';
import { measureHttp, type LoadPlan } from './support/measure-http.js';
import { readPeakRssBytes, resetPeakRss } from './support/peak-rss.js';

const args = new Set(process.argv.slice(2));
const isShort = args.has('--short');
const isGuard = args.has('--guard');
const evaluations = isShort ? 200_000 : 2_000_000;
const plan: LoadPlan = { warmupS: isShort ? 1 : 2, durationS: isShort ? 2 : 10, connections: 50 };
const deadlineMs = isShort ? 60_000 : 180_000;
const helloPath = fileURLToPath(new URL('./uws-hello.js', import.meta.url));
const ingestTarget = 0.9;
const ingestEvents = isShort ? 100_000 : 400_000;
const ingestRounds = isShort ? 1 : 3;
const host = describeHost();
const dataDir = makeDataDir();

/** Proposed actions as agents send them: mostly ordinary, some for each rule. */
const actions: PolicySubject[] = [
  { event_type: 'execve', command: 'ls', args: ['-la', '/work/src'] },
  { event_type: 'execve', command: '/usr/bin/git', args: ['status', '--porcelain'] },
  { event_type: 'execve', command: 'npm', args: ['test', '--', '--grep', 'policy'] },
  { event_type: 'file_open', path: '/work/src/index.ts' },
  { event_type: 'file_write', path: '/work/dist/index.js' },
  { event_type: 'network_connect', dst_ip: '104.16.0.1' },
  { event_type: 'dns_query' },
  { event_type: 'execve', command: 'curl', args: ['-s', 'https://registry.npmjs.org/yaml'] },
  { event_type: 'execve', command: 'curl', args: ['http://169.254.169.254/latest/meta-data/'] },
  { event_type: 'file_open', path: '/home/agent/.aws/credentials' },
  { event_type: 'network_connect', dst_ip: '10.0.3.7' },
  { event_type: 'setuid', target_id: 0 },
  { event_type: 'ptrace' },
];

/** Evaluations per second and one evaluation's p50/p99, against JSON.parse of the same actions. */
function measureInProcess(): Record<string, unknown> {
  const engine = new PolicyEngine(defaultPolicy);
  const texts = actions.map((action) => JSON.stringify(action));
  let sink = 0;
  for (let i = 0; i < 50_000; i++) sink += engine.evaluate(actions[i % actions.length]!).rule_id.length; // warm-up
  let started = process.hrtime.bigint();
  for (let i = 0; i < evaluations; i++) sink += engine.evaluate(actions[i % actions.length]!).rule_id.length;
  const engineNs = Number(process.hrtime.bigint() - started);
  started = process.hrtime.bigint();
  for (let i = 0; i < evaluations; i++)
    sink += (JSON.parse(texts[i % texts.length]!) as PolicySubject).event_type.length;
  const parseNs = Number(process.hrtime.bigint() - started);
  // one evaluation at a time for the percentiles (each timed: the timer's own cost is in them)
  const samples = new Float64Array(Math.min(evaluations, 200_000));
  for (let i = 0; i < samples.length; i++) {
    const at = process.hrtime.bigint();
    sink += engine.evaluate(actions[i % actions.length]!).rule_id.length;
    samples[i] = Number(process.hrtime.bigint() - at) / 1e6;
  }
  samples.sort();
  const perSecond = Math.round(evaluations / (engineNs / 1e9));
  const baseline = Math.round(evaluations / (parseNs / 1e9));
  return {
    name: 'gate.in_process',
    evaluations,
    evaluations_per_sec: perSecond,
    p50_ms: Number(samples[Math.floor(samples.length * 0.5)]!.toFixed(6)),
    p99_ms: Number(samples[Math.floor(samples.length * 0.99)]!.toFixed(6)),
    baseline: { name: 'json.parse_action', per_sec: baseline },
    ratio_to_baseline: Number((perSecond / baseline).toFixed(3)),
    peak_rss_bytes: process.resourceUsage().maxRSS * 1024,
    checksum: sink % 1000,
  };
}

/** Typical tool calls of the three agents: shell commands, a file write, a patch. */
const toolCalls: [string, unknown][] = [
  ['Bash', { command: 'echo hello > greeting.txt && cat greeting.txt' }],
  ['Bash', { command: 'git status --porcelain && git diff --stat HEAD~1 | tail -20' }],
  ['Bash', { command: 'npm test -- --grep "policy engine" 2>&1 | tail -50' }],
  ['Bash', { command: "cd src && grep -rn 'TODO' --include='*.ts' . | head" }],
  ['run_shell_command', { command: 'ls -la /work/src && cat package.json' }],
  ['exec_command', { cmd: "bash -lc 'python3 -m pytest -q tests/test_api.py'" }],
  ['Bash', { command: 'curl -s https://registry.npmjs.org/yaml | jq .version' }],
  ['Write', { file_path: '/work/proj/notes.md', content: '# notes' }],
  ['apply_patch', { command: '*** Begin Patch\n*** Update File: src/a.ts\n@@\n-a\n+b\n*** End Patch\n' }],
];

/** A tool call judged by what it names, µs per call, beside one subject's policy.evaluate. */
function measureToolCalls(): Record<string, unknown> {
  const engine = new PolicyEngine(defaultPolicy);
  const calls = isShort ? 50_000 : 300_000;
  const judge = (i: number): number => {
    const [tool, input] = toolCalls[i % toolCalls.length]!;
    return decideSubjects(engine, toolCallSubjects(tool, input, '/work/proj', '/home/agent')).rule_id.length;
  };
  let sink = 0;
  for (let i = 0; i < 20_000; i++)
    sink += judge(i) + engine.evaluate(actions[i % actions.length]!).rule_id.length;
  let started = process.hrtime.bigint();
  for (let i = 0; i < calls; i++) sink += judge(i);
  const judgeNs = Number(process.hrtime.bigint() - started) / calls;
  started = process.hrtime.bigint();
  for (let i = 0; i < calls; i++) sink += engine.evaluate(actions[i % actions.length]!).rule_id.length;
  const evaluateNs = Number(process.hrtime.bigint() - started) / calls;
  const samples = new Float64Array(Math.min(calls, 100_000));
  for (let i = 0; i < samples.length; i++) {
    const at = process.hrtime.bigint();
    sink += judge(i);
    samples[i] = Number(process.hrtime.bigint() - at) / 1e3;
  }
  samples.sort();
  return {
    name: 'gate.tool_call',
    calls,
    us_per_call: Number((judgeNs / 1e3).toFixed(3)),
    p50_us: Number(samples[Math.floor(samples.length * 0.5)]!.toFixed(3)),
    p99_us: Number(samples[Math.floor(samples.length * 0.99)]!.toFixed(3)),
    baseline: { name: 'policy.evaluate_one_subject', us_per_call: Number((evaluateNs / 1e3).toFixed(3)) },
    ratio_to_baseline: Number((judgeNs / evaluateNs).toFixed(1)),
    checksum: sink % 1000,
  };
}

async function runBench(): Promise<string[]> {
  const failures: string[] = [];
  // printed, never guarded: --guard leaves it out
  if (!isGuard) process.stdout.write(`${JSON.stringify({ ...measureToolCalls(), ...host })}\n`);
  if (args.has('--subjects')) return failures;
  const inProcess = measureInProcess();
  process.stdout.write(`${JSON.stringify({ ...inProcess, ...host })}\n`);
  failures.push(
    ...guardRatio(
      'gate.in_process.evaluations_per_sec/json_parse',
      inProcess['ratio_to_baseline'] as number,
      'evaluations/s over JSON.parse',
    ),
  );

  const hello = await spawnServer(helloPath);
  const baseline = await measureHttp(`${hello.url}/`, plan).finally(() => hello.stop());
  const daemon = await startDaemon({ dataDir });
  try {
    const pid = daemon.child.pid!;
    resetPeakRss(pid);
    const body = JSON.stringify({ event_type: 'execve', command: 'curl', args: ['http://169.254.169.254/'] });
    const load = await measureHttp(`${daemon.url}/v1/security/evaluate`, plan, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body,
    });
    const ratio = Number((load.requests_per_sec / Math.max(1, baseline.requests_per_sec)).toFixed(3));
    const result = {
      name: 'gate.http',
      ...load,
      baseline: {
        name: 'http.uws_hello',
        requests_per_sec: baseline.requests_per_sec,
        p99_ms: baseline.p99_ms,
      },
      ratio_to_baseline: ratio,
      peak_rss_bytes: readPeakRssBytes(pid),
    };
    process.stdout.write(`${JSON.stringify({ ...result, ...host })}\n`);
    if (load.errors > 0 || load.non2xx > 0)
      failures.push(`gate.http: ${load.errors} errors and ${load.non2xx} non-2xx answers`);
    failures.push(...guardRatio('gate.http.rps/uws_hello', ratio, "requests/s over the bare uWS server's"));
  } finally {
    await daemon.stop();
  }
  failures.push(...(await measureIngest()));
  return failures;
}

/** Ingest events/s with the built-in policy and with a policy of no rule, in alternating rounds. */
async function measureIngest(): Promise<string[]> {
  const noRules = join(dataDir, 'no-rules.json');
  writeFileSync(noRules, JSON.stringify({ include_default_rules: false, rules: [] }));
  const runs = workloadRuns(50, 45);
  const chunks = [
    ...renderChunks(
      runs,
      { seed: 1, events: ingestEvents, startS: workloadEpochS, spanS: 3600 },
      4 * 1024 * 1024,
    ),
  ];
  const rates: { on: number[]; off: number[] } = { on: [], off: [] };
  const failures: string[] = [];
  for (let round = 0; round < ingestRounds; round++) {
    for (const arm of ['off', 'on'] as const) {
      const daemon = await startDaemon({
        dataDir: join(dataDir, `ingest-${arm}-${round}`),
        args: arm === 'off' ? ['--policy', noRules] : [],
      });
      try {
        const client = new HttpClient(daemon.url, 4);
        await bindRuns(client, runs);
        const run = await postBodies(client, '/v1/telemetry/ingest?format=native', chunks.values(), 3);
        if (run.failures.length > 0) failures.push(`gate.ingest (${arm}): ${run.failures[0]}`);
        rates[arm].push(Math.round((run.accepted * 1000) / run.elapsedMs));
      } finally {
        await discardDaemon(daemon);
      }
    }
  }
  const median = (values: number[]): number =>
    [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;
  const ratio = Number((median(rates.on) / median(rates.off)).toFixed(3));
  const result = {
    name: 'gate.ingest',
    events: ingestEvents,
    rounds: ingestRounds,
    events_per_sec: median(rates.on),
    rounds_events_per_sec: rates.on,
    baseline: {
      name: 'ingest.policy_without_rules',
      events_per_sec: median(rates.off),
      rounds_events_per_sec: rates.off,
    },
    ratio_to_baseline: ratio,
    target: { ratio_to_baseline: ingestTarget },
    target_met: ratio >= ingestTarget,
  };
  process.stdout.write(`${JSON.stringify({ ...result, ...host })}\n`);
  failures.push(
    ...guardRatio('gate.ingest.events_per_sec/no_policy', ratio, 'ingest with the policy over without'),
  );
  return failures;
}

await benchMain({
  name: 'gate.bench',
  deadlineMs,
  isGuard,
  run: runBench,
  cleanup: () => removeDir(dataDir),
});
