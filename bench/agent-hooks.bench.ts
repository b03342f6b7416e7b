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
 * adds beyond that span is the agent's own work around a hook. provd's client is split by its
 * syscalls (exec to connect, connect to the answer's first bytes, answer to exit), and the daemon
 * traces each hook it answers (PROVD_TRACE_STEPS: accept to answer written, and the wait for its
 * event loop within); each traced hook is matched to its span by time, and the slowest are shown
 * whole, so a tail says where it came from.
 *
 * Prints one JSON line per agent and hook arm, with the `none` arm of the same run as its baseline:
 * p50/p99 of each, what the hook adds (p50 - p50, p99 - p99), the hook spans, and the host's load.
 *
 * --calls N (default 20; --short 8), --rounds N (default 3; --short 1), --hook-command CMD,
 * --agent NAME (repeatable; default all installed), --provd, --http, --no-trace, --sensor (the
 * daemon runs its eBPF sensor, root: each hook binds its agent, whose tool calls are then
 * captured, stored and tied), --provd-baseline DIR (arm `provd_base`: another checkout's build,
 * its daemon and client, beside this one's in the same rounds, to compare two builds under the
 * same load), --profile DIR (this build's daemon under --cpu-prof, its profiles written into DIR at
 * its stop), --dump FILE (one JSON line per provd hook: its span's kernel times, CLOCK_MONOTONIC ns,
 * and the daemon's answer matched to it; to lay beside a profile). An agent not installed (.ci/install-agents) is skipped with a line saying so.
 */
import { appendFileSync, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { preToolEvent, type AgentLaunch } from '../test/support/agents/agent-config.js';
import { agentMissing } from '../test/support/agents/installed-agents.js';
import { runAgent } from '../test/support/agents/run-agent.js';
import type { AgentName, Script } from '../test/support/agents/script.js';
import { hookClientPath, hookSocketName } from '../src/agents/hook-command.js';
import { spawnServer, startDaemon, type RunningDaemon } from '../test/support/daemon.js';
import { benchMain } from './support/bench-main.js';
import { percentileMs } from './support/ingest-http.js';
import { describeHost } from './support/host.js';
import { HookSpanTracer, type HookSpan } from './support/hook-spans.js';
import { readCpuSeconds } from './support/process-meter.js';
import { threadRoles } from './support/ingest-profile.js';
import { meterThreads, type ThreadCpu } from './support/thread-cpu.js';
import { startProfiledDaemon } from './support/profiled-daemon.js';

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

const baselineRoot = option('--provd-baseline')[0];
const withSensor = argv.includes('--sensor');
const profileDir = option('--profile')[0];
const dumpFile = option('--dump')[0];

type Arm = 'none' | 'command' | 'provd' | 'provd_base' | 'http';
type ProvdArm = 'provd' | 'provd_base';
const arms: Arm[] = [
  'none',
  'command',
  ...(argv.includes('--provd') ? (['provd'] as const) : []),
  ...(baselineRoot !== undefined ? (['provd_base'] as const) : []),
  ...(argv.includes('--http') ? (['http'] as const) : []),
];
const isProvd = (arm: Arm): arm is ProvdArm => arm === 'provd' || arm === 'provd_base';
/** The bpftrace marker of each arm's hook command (-1: none). */
const markers: Record<Arm, number> = { none: -1, command: 0, provd: 1, provd_base: 2, http: -1 };

/** N turns of one `true` each, then a final text. */
function script(prefix: string): Script {
  return [
    ...Array.from({ length: calls }, (_, index) => ({
      calls: [{ id: `${prefix}_${index}`, kind: 'shell' as const, command: `true ${index}` }],
    })),
    { text: 'done' },
  ];
}

/** A daemon whose hook socket provd's client answers from, its client, and its hook_answer trace. */
interface ProvdUnderTest {
  daemon: RunningDaemon;
  client: string;
  traceFile: string;
  /** Trace lines read so far. */
  read: number;
}
/** The daemons of the provd arms: this build's (--provd) and the baseline's (--provd-baseline). */
const provds = new Map<ProvdArm, ProvdUnderTest>();
/** The trivial server Claude's HTTP hook posts to (--http). */
let httpHook: Server | undefined;
/** The kernel's timing of each hook process, when root has bpftrace (else why not). */
let tracer: HookSpanTracer | string = 'not asked';

/** provd's hook command for `agent` in `arm`. */
function provdCommand(agent: AgentName, arm: ProvdArm): string {
  const provd = provds.get(arm)!;
  return `${provd.client} ${agent} --socket ${join(provd.daemon.dataDir, hookSocketName)}`;
}

/** The client each provd arm runs: this build's, or the baseline checkout's. */
function clientOf(arm: ProvdArm): string {
  return arm === 'provd' ? hookClientPath() : join(baselineRoot!, 'native', 'build', 'Release', 'provd-hook');
}

/** Starts `arm`'s daemon (this build's CLI, or the baseline's), tracing each hook it answers. */
async function startProvd(arm: ProvdArm): Promise<ProvdUnderTest> {
  const dataDir = mkdtempSync(join(scratch, `data-${arm}-`));
  const traceFile = join(scratch, `${arm}-steps.ndjson`);
  const env = { PROVD_TRACE_STEPS: traceFile };
  const args = withSensor ? { sensor: true, env } : { env };
  const daemon =
    arm === 'provd' && profileDir !== undefined
      ? await startProfiledDaemon({ dataDir, profileDir, env, sensor: withSensor })
      : arm === 'provd'
        ? await startDaemon({ dataDir, ...args })
        : {
            ...(await spawnServer(
              join(baselineRoot!, 'dist', 'src', 'cli', 'main.js'),
              [
                'daemon',
                '--listen',
                '127.0.0.1:0',
                '--data-dir',
                dataDir,
                ...(withSensor ? [] : ['--no-sensor']),
              ],
              { ...process.env, ...env },
            )),
            dataDir,
          };
  return { daemon, client: clientOf(arm), traceFile, read: 0 };
}

/** One hook the daemon answered (its hook_answer line): when, its steps in ms, and whether a PreToolUse. */
interface DaemonAnswer {
  atNs: bigint;
  totalMs: number;
  steps: Record<string, number>;
  pre: boolean;
}

/** The answers `provd` traced since the last call (a `judge` step marks a PreToolUse). */
function takeAnswers(provd: ProvdUnderTest): DaemonAnswer[] {
  const text = existsSync(provd.traceFile) ? readFileSync(provd.traceFile, 'utf8') : '';
  const lines = text.split('\n').filter((line) => line !== '');
  const fresh = lines.slice(provd.read);
  provd.read = lines.length;
  return fresh.flatMap((line) => {
    const entry = JSON.parse(line) as {
      kind: string;
      at_us: number;
      total_ms: number;
      steps: Record<string, number>;
    };
    if (entry.kind !== 'hook_answer') return [];
    const pre = entry.steps['judge'] !== undefined;
    return [{ atNs: BigInt(entry.at_us) * 1000n, totalMs: entry.total_ms, steps: entry.steps, pre }];
  });
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
  /** The PreToolUse answers the daemon traced (provd's arms). */
  answers: DaemonAnswer[];
  /** The daemon's busiest threads over the run, by role (provd's arms). */
  threads: ThreadCpu | null;
}

/** Runs `agent` through the script once with `arm`'s hook. */
async function measure(agent: AgentName, arm: Arm, prefix: string): Promise<Measured> {
  const cwd = mkdtempSync(join(scratch, `${agent}-`));
  const command = arm === 'command' ? hookCommand : isProvd(arm) ? provdCommand(agent, arm) : undefined;
  const provd = isProvd(arm) ? provds.get(arm)! : undefined;
  const daemonPid = provd?.daemon.child.pid;
  const cpuBefore = daemonPid === undefined ? 0 : (readCpuSeconds(daemonPid) ?? 0);
  const threads = provd === undefined ? null : meterThreads(daemonPid!, 6, threadRoles(provd.daemon.logs));
  const run = await runAgent(agent, {
    cwd,
    prompt: 'run true',
    script: script(prefix),
    timeoutMs,
    // the http arm installs a command first, then replaces it in Claude's settings; provd's arms
    // also hook SessionStart, as `provd hooks install` does: its hook binds the session's agent
    ...(arm === 'none'
      ? {}
      : {
          hooks: {
            [preToolEvent(agent)]: command ?? 'true',
            ...(isProvd(arm) ? { SessionStart: command! } : {}),
          },
        }),
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
  const traced =
    typeof tracer === 'string' ? [] : tracer.take().filter((span) => span.marker === markers[arm]);
  const answers = provd === undefined ? [] : takeAnswers(provd);
  // the PreToolUse hooks only: a span the daemon's SessionStart answer matches is the session's
  const spans = traced.filter((span) => matchedAnswer(span, answers)?.pre !== false);
  const sessionStarts = answers.filter((answer) => !answer.pre).length;
  if (provd !== undefined && sessionStarts !== 1)
    throw new Error(`${agent} ${arm}: ${sessionStarts} SessionStart hooks answered, not 1`);
  return {
    ms,
    spans,
    daemonCpuSeconds,
    answers: answers.filter((answer) => answer.pre),
    threads: threads?.() ?? null,
  };
}

/**
 * The daemon's answer to the hook of `span`: the daemon's line is written just after its answer,
 * which the client may read first, so the answer traced after the span's connect nearest to the
 * client's read. Undefined for a span that never connected, or with no answer after it.
 */
function matchedAnswer(span: HookSpan, answers: readonly DaemonAnswer[]): DaemonAnswer | undefined {
  if (span.client === null) return undefined;
  const gap = (answer: DaemonAnswer): bigint =>
    answer.atNs > span.answerNs ? answer.atNs - span.answerNs : span.answerNs - answer.atNs;
  return answers.filter((answer) => answer.atNs >= span.connectNs).sort((a, b) => Number(gap(a) - gap(b)))[0];
}

async function run(): Promise<string[]> {
  for (const arm of arms.filter(isProvd)) {
    if (!existsSync(clientOf(arm))) return [`${clientOf(arm)} is not built (npm run build:hook-client)`];
    provds.set(arm, await startProvd(arm));
  }
  if (arms.includes('http')) {
    httpHook = createServer((req, res) => {
      req.resume();
      req.on('end', () => res.writeHead(200, { 'content-type': 'application/json' }).end('{}'));
    });
    await new Promise<void>((resolve) => httpHook!.listen(0, '127.0.0.1', resolve));
  }
  if (!argv.includes('--no-trace'))
    // marker 0: the command arm's hook; 1: provd's (its client's path, the same for every agent); 2: the baseline's
    tracer = await HookSpanTracer.start([
      hookCommand,
      hookClientPath(),
      ...(baselineRoot === undefined ? [] : [clientOf('provd_base')]),
    ]);
  try {
    for (const agent of agents) await runAgentArms(agent);
  } finally {
    if (typeof tracer !== 'string') await tracer.stop();
    httpHook?.close();
    for (const provd of provds.values()) await provd.daemon.stop();
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
  const answers = new Map<Arm, DaemonAnswer[]>(agentArms.map((arm) => [arm, []]));
  const threads = new Map<Arm, ThreadCpu[]>(agentArms.map((arm) => [arm, []]));
  const daemonCpuSeconds = new Map<Arm, number>(agentArms.map((arm) => [arm, 0]));
  const loadAtStart = loadavg()[0]!;
  for (let round = 0; round < rounds; round += 1) {
    for (let at = 0; at < agentArms.length; at += 1) {
      const arm = agentArms[(round + at) % agentArms.length]!;
      const measured = await measure(agent, arm, `${arm}${round}`);
      ms.get(arm)!.push(...measured.ms);
      spans.get(arm)!.push(...measured.spans);
      answers.get(arm)!.push(...measured.answers);
      if (measured.threads !== null) threads.get(arm)!.push(measured.threads);
      daemonCpuSeconds.set(arm, daemonCpuSeconds.get(arm)! + measured.daemonCpuSeconds);
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
      hook: arm === 'command' ? hookCommand : isProvd(arm) ? provds.get(arm)!.client : 'http {}',
      p50_ms: percentileMs(hooked, 50),
      p99_ms: percentileMs(hooked, 99),
      baseline,
      added_p50_ms: Number((percentileMs(hooked, 50) - baseline.p50_ms).toFixed(3)),
      added_p99_ms: Number((percentileMs(hooked, 99) - baseline.p99_ms).toFixed(3)),
      hook_span: describeSpans(spans.get(arm)!, arm),
      // the daemon's CPU for each hook: its answer, and the store's work behind it, on the same 2 cores
      ...(isProvd(arm)
        ? {
            sensor: withSensor,
            daemon_cpu_ms_per_hook: Number(((daemonCpuSeconds.get(arm)! * 1000) / hooked.length).toFixed(2)),
            // each run's busiest threads, percent of a core by role/tid
            daemon_threads: threads.get(arm)!.map((run) => run.threads),
            ...describeSplit(spans.get(arm)!, answers.get(arm)!, `${agent}.${arm}`),
          }
        : {}),
      ...load,
      ...describeHost(),
    };
    process.stdout.write(JSON.stringify(result) + '\n');
  }
}

/** p50 / p99 of `values`, in ms. */
function p50p99(values: readonly number[]): { p50_ms: number; p99_ms: number } {
  return { p50_ms: percentileMs(values, 50), p99_ms: percentileMs(values, 99) };
}

/**
 * A provd arm's spans split: the client's parts from its syscalls, the daemon's from its trace,
 * and the slowest spans whole (each with the daemon's answer that fell between its connect and
 * its answer), so the tail's source shows.
 */
function describeSplit(
  spans: readonly HookSpan[],
  answers: readonly DaemonAnswer[],
  name: string,
): Record<string, unknown> {
  const clients = spans.flatMap((span) => (span.client === null ? [] : [{ span, client: span.client }]));
  const step = (name: string): number[] => answers.map((answer) => answer.steps[name] ?? 0);
  const matched = (span: HookSpan): DaemonAnswer | undefined => matchedAnswer(span, answers);
  const round = (ms: number): number => Number(ms.toFixed(2));
  if (dumpFile !== undefined)
    for (const { span } of clients) {
      const answer = matched(span);
      const times = { connect_ns: String(span.connectNs), answer_ns: String(span.answerNs) };
      const daemon =
        answer === undefined
          ? null
          : { at_ns: String(answer.atNs), total_ms: answer.totalMs, ...answer.steps };
      appendFileSync(
        dumpFile,
        JSON.stringify({ name, ...span, ...times, connectNs: undefined, answerNs: undefined, daemon }) + '\n',
      );
    }
  const slowest = [...clients]
    .sort((a, b) => b.span.totalMs - a.span.totalMs)
    .slice(0, 3)
    .map(({ span, client }) => {
      const answer = matched(span);
      return {
        span_ms: round(span.totalMs),
        shell_ms: round(span.shellMs),
        exec_to_connect_ms: round(client.connectMs - span.shellMs),
        connect_to_answer_ms: round(client.answerMs - client.connectMs),
        // the connection waiting in the socket's backlog for the daemon's event loop to accept it
        before_accept_ms:
          answer === undefined ? null : round(client.answerMs - client.connectMs - answer.totalMs),
        answer_to_exit_ms: round(client.exitMs - client.answerMs),
        after_client_ms: round(span.totalMs - client.exitMs),
        daemon: answer === undefined ? null : { total_ms: round(answer.totalMs), ...answer.steps },
      };
    });
  return {
    client: {
      traced: clients.length,
      exec_to_connect: p50p99(clients.map(({ span, client }) => client.connectMs - span.shellMs)),
      connect_to_answer: p50p99(clients.map(({ client }) => client.answerMs - client.connectMs)),
      answer_to_exit: p50p99(clients.map(({ client }) => client.exitMs - client.answerMs)),
    },
    daemon: {
      traced: answers.length,
      accept_to_answer: p50p99(answers.map((answer) => answer.totalMs)),
      // the agent's first PreToolUse in this arm (for the first agent of a run, the daemon's first)
      first_ms: answers[0] === undefined ? null : Number(answers[0].totalMs.toFixed(2)),
      wait: p50p99(step('wait')),
      read: p50p99(step('read')),
      handle: p50p99(step('handle')),
      trust: p50p99(step('trust')),
      trust_proc: p50p99(step('proc')),
      trust_execs: p50p99(step('execs')),
      judge: p50p99(step('judge')),
      send: p50p99(step('send')),
    },
    slowest_spans: slowest,
  };
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
