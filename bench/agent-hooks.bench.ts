/**
 * Agent hooks benchmark (`npm run bench:agent-hooks`, in `npm run bench`, not in the guard yet):
 * issue 42's item 7, a PreToolUse hook's added latency per agent CLI (Claude Code, Codex, Gemini
 * CLI, driven by the scripted model servers of test/support/agents/). Each run is N scripted shell
 * tool calls (`true 0`, `true 1`...: distinct, as Gemini CLI stops a loop of identical calls), and
 * a tool call's latency is measured at the model server: from sending the answer that carries the
 * call to receiving the request with its result. Arms, in the same run, interleaved round by round
 * (each round starts with the next arm, so a shared host's load falls on all alike):
 *
 * - `none`: no hooks, the baseline of every other arm;
 * - `command`: a pre-tool command hook that only reads its payload (`--hook-command`, default
 *   `cat > /dev/null`): what any command hook costs in the agent's own way of running one;
 * - `provd` (`--provd`): provd's own hook, the native client (`provd-hook AGENT --socket S`)
 *   answering from a real daemon started for the run (each call judged, answered and stored);
 * - `http` (`--http`, Claude Code only): Claude's HTTP hook (`{"type":"http","url":...}`) against a
 *   trivial local server answering `{}`, the floor of a hook with no process.
 *
 * As root with bpftrace, each hook process is also timed in the kernel (hook-spans.ts): from the
 * agent's fork to its exit, and to the exec of its command (the shell's share), so the figure is
 * "from the agent starting the hook to its answer" as the issue defines it; what the tool call
 * adds beyond that span is the agent's own work around a hook.
 *
 * Prints one JSON line per agent and hook arm, with the `none` arm of the same run as its baseline:
 * p50/p99 of each, what the hook adds (p50 - p50, p99 - p99), the hook spans, and the host's load.
 *
 * --calls N (default 20; --short 8), --rounds N (default 3; --short 1), --hook-command CMD,
 * --agent NAME (repeatable; default all installed), --provd, --http, --no-trace. An agent not
 * installed (.ci/install-agents) is skipped with a line saying so.
 */
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { preToolEvent, type AgentLaunch } from '../test/support/agents/agent-config.js';
import { agentMissing } from '../test/support/agents/installed-agents.js';
import { runAgent } from '../test/support/agents/run-agent.js';
import type { AgentName, Script } from '../test/support/agents/script.js';
import { hookClientPath, hookSocketName } from '../src/agents/hook-command.js';
import { startDaemon, type RunningDaemon } from '../test/support/daemon.js';
import { benchMain } from './support/bench-main.js';
import { percentileMs } from './support/ingest-http.js';
import { describeHost } from './support/host.js';
import { HookSpanTracer, type HookSpan } from './support/hook-spans.js';
import { readCpuSeconds } from './support/process-meter.js';

const argv = process.argv.slice(2);
function option(name: string): string[] {
  return argv.flatMap((arg, index) =>
    arg === name && argv[index + 1] !== undefined ? [argv[index + 1] as string] : [],
  );
}
const isShort = argv.includes('--short');
const calls = Number(option('--calls')[0] ?? (isShort ? 8 : 20));
const rounds = Number(option('--rounds')[0] ?? (isShort ? 1 : 3));
const hookCommand = option('--hook-command')[0] ?? 'cat > /dev/null';
const chosen = option('--agent') as AgentName[];
const agents: AgentName[] = chosen.length > 0 ? chosen : ['claude', 'codex', 'gemini'];
const timeoutMs = 30_000 + calls * 10_000;
const scratch = mkdtempSync(join(tmpdir(), 'provd-agent-hooks-bench-'));

/**
 * Gemini CLI 0.61's loop detection asks the model (a JSON side request) once a prompt has taken 30
 * turns (LLM_CHECK_AFTER_TURNS); the scripted server answers it with text, and Gemini CLI retries
 * with backoff for minutes: a run of 30 calls sat idle until its 8-minute timeout. Runs stay below.
 */
const geminiLoopCheckTurn = 30;

type Arm = 'none' | 'command' | 'provd' | 'http';
const arms: Arm[] = [
  'none',
  'command',
  ...(argv.includes('--provd') ? (['provd'] as const) : []),
  ...(argv.includes('--http') ? (['http'] as const) : []),
];

/** N turns of one `true` each, then a final text. */
function script(prefix: string): Script {
  return [
    ...Array.from({ length: calls }, (_, index) => ({
      calls: [{ id: `${prefix}_${index}`, kind: 'shell' as const, command: `true ${index}` }],
    })),
    { text: 'done' },
  ];
}

/** The daemon whose hook socket provd's client answers from (--provd). */
let daemon: RunningDaemon | undefined;
/** The trivial server Claude's HTTP hook posts to (--http). */
let httpHook: Server | undefined;
/** The kernel's timing of each hook process, when root has bpftrace (else why not). */
let tracer: HookSpanTracer | string = 'not asked';

/** provd's hook command for `agent`. */
function provdCommand(agent: AgentName): string {
  return `${hookClientPath()} ${agent} --socket ${join(daemon!.dataDir, hookSocketName)}`;
}

/** Points Claude's settings' PreToolUse at the trivial HTTP server instead of a command. */
function useHttpHook(_home: string, launch: AgentLaunch): Promise<AgentLaunch> {
  const settings = launch.args[launch.args.indexOf('--settings') + 1]!;
  const url = `http://127.0.0.1:${(httpHook!.address() as AddressInfo).port}/hook`;
  const hook = { type: 'http', url, timeout: 60 };
  writeFileSync(settings, JSON.stringify({ hooks: { PreToolUse: [{ matcher: '*', hooks: [hook] }] } }));
  return Promise.resolve(launch);
}

/** What one run of an arm measured. */
interface Measured {
  /** Each tool call's latency at the model server. */
  ms: number[];
  /** The hook processes the kernel saw meanwhile. */
  spans: HookSpan[];
  /** The daemon's CPU seconds over the run (provd's arm), else 0. */
  daemonCpuSeconds: number;
}

/** Runs `agent` through the script once with `arm`'s hook. */
async function measure(agent: AgentName, arm: Arm, prefix: string): Promise<Measured> {
  const cwd = mkdtempSync(join(scratch, `${agent}-`));
  const command = arm === 'command' ? hookCommand : arm === 'provd' ? provdCommand(agent) : undefined;
  const daemonPid = arm === 'provd' ? daemon!.child.pid! : undefined;
  const cpuBefore = daemonPid === undefined ? 0 : (readCpuSeconds(daemonPid) ?? 0);
  const run = await runAgent(agent, {
    cwd,
    prompt: 'run true',
    script: script(prefix),
    timeoutMs,
    // the http arm installs a command first, then replaces it in Claude's settings
    ...(arm === 'none' ? {} : { hooks: { [preToolEvent(agent)]: command ?? 'true' } }),
    ...(arm === 'http' ? { prepare: useHttpHook } : {}),
  });
  if (run.exitCode !== 0) throw new Error(`${agent} exited ${run.exitCode}: ${run.stderr.slice(-1000)}`);
  const ms = run.timings.flatMap((timing) =>
    timing.resultAtMs === undefined ? [] : [timing.resultAtMs - timing.sentAtMs],
  );
  if (ms.length !== calls) throw new Error(`${agent}: ${ms.length} of ${calls} tool results came back`);
  // bpftrace prints from its perf buffer every few ms, and the daemon stores behind its answers: let both settle
  await new Promise((resolve) => setTimeout(resolve, 300));
  const daemonCpuSeconds = daemonPid === undefined ? 0 : (readCpuSeconds(daemonPid) ?? 0) - cpuBefore;
  const marker = arm === 'command' ? 0 : arm === 'provd' ? 1 : -1;
  const spans = typeof tracer === 'string' ? [] : tracer.take().filter((span) => span.marker === marker);
  return { ms, spans, daemonCpuSeconds };
}

async function run(): Promise<string[]> {
  if (arms.includes('provd')) {
    if (!existsSync(hookClientPath()))
      return [`${hookClientPath()} is not built (npm run build:hook-client)`];
    daemon = await startDaemon({ dataDir: mkdtempSync(join(scratch, 'data-')) });
  }
  if (arms.includes('http')) {
    httpHook = createServer((req, res) => {
      req.resume();
      req.on('end', () => res.writeHead(200, { 'content-type': 'application/json' }).end('{}'));
    });
    await new Promise<void>((resolve) => httpHook!.listen(0, '127.0.0.1', resolve));
  }
  if (!argv.includes('--no-trace'))
    // marker 0: the command arm's hook; 1: provd's (its client's path, the same for every agent)
    tracer = await HookSpanTracer.start([hookCommand, hookClientPath()]);
  try {
    for (const agent of agents) await runAgentArms(agent);
  } finally {
    if (typeof tracer !== 'string') await tracer.stop();
    httpHook?.close();
    await daemon?.stop();
  }
  return [];
}

async function runAgentArms(agent: AgentName): Promise<void> {
  const missing = agentMissing(agent);
  if (missing !== undefined) {
    process.stdout.write(JSON.stringify({ name: `agent_hooks.${agent}`, skipped: missing }) + '\n');
    return;
  }
  if (agent === 'gemini' && calls >= geminiLoopCheckTurn) {
    const why = `--calls ${calls}: Gemini CLI asks its model whether it loops at turn ${geminiLoopCheckTurn}, and retries the scripted server's non-JSON answer for minutes`;
    process.stdout.write(JSON.stringify({ name: `agent_hooks.${agent}`, skipped: why }) + '\n');
    return;
  }
  const agentArms = arms.filter((arm) => arm !== 'http' || agent === 'claude');
  const ms = new Map<Arm, number[]>(agentArms.map((arm) => [arm, []]));
  const spans = new Map<Arm, HookSpan[]>(agentArms.map((arm) => [arm, []]));
  let daemonCpuSeconds = 0;
  const loadAtStart = loadavg()[0]!;
  for (let round = 0; round < rounds; round += 1) {
    for (let at = 0; at < agentArms.length; at += 1) {
      const arm = agentArms[(round + at) % agentArms.length]!;
      const measured = await measure(agent, arm, `${arm}${round}`);
      ms.get(arm)!.push(...measured.ms);
      spans.get(arm)!.push(...measured.spans);
      daemonCpuSeconds += measured.daemonCpuSeconds;
    }
  }
  const load = { load_1m_start: loadAtStart, load_1m_end: loadavg()[0]! };
  const base = ms.get('none')!;
  const baseline = { name: 'no hooks', p50_ms: percentileMs(base, 50), p99_ms: percentileMs(base, 99) };
  for (const arm of agentArms.filter((candidate) => candidate !== 'none')) {
    const hooked = ms.get(arm)!;
    const result = {
      name: `agent_hooks.${agent}.${arm}`,
      calls: calls * rounds,
      hook: arm === 'command' ? hookCommand : arm === 'provd' ? 'provd-hook' : 'http {}',
      p50_ms: percentileMs(hooked, 50),
      p99_ms: percentileMs(hooked, 99),
      baseline,
      added_p50_ms: Number((percentileMs(hooked, 50) - baseline.p50_ms).toFixed(3)),
      added_p99_ms: Number((percentileMs(hooked, 99) - baseline.p99_ms).toFixed(3)),
      hook_span: describeSpans(spans.get(arm)!, arm),
      // the daemon's CPU for each hook: its answer, and the store's work behind it, on the same 2 cores
      ...(arm === 'provd'
        ? { daemon_cpu_ms_per_hook: Number(((daemonCpuSeconds * 1000) / hooked.length).toFixed(2)) }
        : {}),
      ...load,
      ...describeHost(),
    };
    process.stdout.write(JSON.stringify(result) + '\n');
  }
}

/** The kernel's timing of the arm's hook processes: fork to exit, and fork to the command's exec. */
function describeSpans(spans: readonly HookSpan[], arm: Arm): Record<string, unknown> {
  if (arm === 'http') return { traced: 0, why: 'no hook process' };
  if (typeof tracer === 'string') return { traced: 0, why: tracer };
  const total = spans.map((span) => span.totalMs);
  const shell = spans.map((span) => span.shellMs);
  return {
    traced: spans.length,
    p50_ms: percentileMs(total, 50),
    p99_ms: percentileMs(total, 99),
    shell_p50_ms: percentileMs(shell, 50),
    shell_p99_ms: percentileMs(shell, 99),
  };
}

await benchMain({
  name: 'agent-hooks.bench',
  deadlineMs: agents.length * arms.length * rounds * (timeoutMs + 10_000),
  isGuard: false,
  run,
  cleanup: () => rmSync(scratch, { recursive: true, force: true }),
});
