/**
 * Agent hooks benchmark (`npm run bench:agent-hooks`, in `npm run bench`, not in the guard yet):
 * the floor for issue 42's item 7. Per agent CLI (Claude Code, Codex, Gemini CLI, driven by the
 * scripted model servers of test/support/agents/), N scripted shell tool calls (`true`), run without
 * hooks and with a pre-tool command hook, and the latency of a tool call measured at the model
 * server: from sending the answer that carries the call to receiving the request with its result.
 * Prints one JSON line per agent: p50/p99 of both, and what the hook adds (p50 - p50, p99 - p99).
 *
 * Each run is N calls, in 3 alternating rounds without and with the hook (--short: 1 round);
 * distinct commands (`true 0`, `true 1`...), as Gemini CLI stops a loop of identical calls.
 *
 * --calls N (default 30; --short 8), --hook-command CMD (default `cat > /dev/null`, a no-op that
 * reads the payload), --agent NAME (repeatable; default all installed). An agent not installed
 * (.ci/install-agents) is skipped with a line saying so. --provd: the hook is provd's own, the
 * native client (`provd-hook AGENT --socket S`) answering from a real daemon started for the run
 * (each call judged, answered and stored, as when watched).
 */
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { preToolEvent } from '../test/support/agents/agent-config.js';
import { agentMissing } from '../test/support/agents/installed-agents.js';
import { runAgent } from '../test/support/agents/run-agent.js';
import type { AgentName, Script } from '../test/support/agents/script.js';
import { hookClientPath, hookSocketName } from '../src/agents/hook-command.js';
import { startDaemon, type RunningDaemon } from '../test/support/daemon.js';
import { benchMain } from './support/bench-main.js';
import { percentileMs } from './support/ingest-http.js';
import { describeHost } from './support/host.js';

const argv = process.argv.slice(2);
function option(name: string): string[] {
  return argv.flatMap((arg, index) =>
    arg === name && argv[index + 1] !== undefined ? [argv[index + 1] as string] : [],
  );
}
const isShort = argv.includes('--short');
const calls = Number(option('--calls')[0] ?? (isShort ? 8 : 30));
const withProvd = argv.includes('--provd');
const hookCommand = option('--hook-command')[0] ?? 'cat > /dev/null';
const chosen = option('--agent') as AgentName[];
const agents: AgentName[] = chosen.length > 0 ? chosen : ['claude', 'codex', 'gemini'];
const rounds = isShort ? 1 : 3;
const timeoutMs = 30_000 + calls * 15_000;
const scratch = mkdtempSync(join(tmpdir(), 'provd-agent-hooks-bench-'));

/** N turns of one `true` each, then a final text. */
function script(prefix: string): Script {
  return [
    ...Array.from({ length: calls }, (_, index) => ({
      calls: [{ id: `${prefix}_${index}`, kind: 'shell' as const, command: `true ${index}` }],
    })),
    { text: 'done' },
  ];
}

/** Each tool call's latency at the model server, in ms. */
async function latencies(
  agent: AgentName,
  hooks: Record<string, string> | undefined,
  prefix: string,
): Promise<number[]> {
  const cwd = mkdtempSync(join(scratch, `${agent}-`));
  const run = await runAgent(agent, {
    cwd,
    prompt: 'run true',
    script: script(prefix),
    timeoutMs,
    ...(hooks === undefined ? {} : { hooks }),
  });
  if (run.exitCode !== 0) throw new Error(`${agent} exited ${run.exitCode}: ${run.stderr.slice(-1000)}`);
  const measured = run.timings.flatMap((timing) =>
    timing.resultAtMs === undefined ? [] : [timing.resultAtMs - timing.sentAtMs],
  );
  if (measured.length !== calls)
    throw new Error(`${agent}: ${measured.length} of ${calls} tool results came back`);
  return measured;
}

/** The daemon whose hook socket provd's client answers from (--provd). */
let daemon: RunningDaemon | undefined;

/** The pre-tool hook command for `agent`: provd's client with --provd, else --hook-command. */
function commandFor(agent: AgentName): string {
  if (daemon === undefined) return hookCommand;
  return `${hookClientPath()} ${agent} --socket ${join(daemon.dataDir, hookSocketName)}`;
}

async function run(): Promise<string[]> {
  const host = describeHost();
  if (withProvd) {
    if (!existsSync(hookClientPath()))
      return [`${hookClientPath()} is not built (npm run build:hook-client)`];
    daemon = await startDaemon({ dataDir: mkdtempSync(join(scratch, 'data-')) });
  }
  try {
    await runAgents(host);
  } finally {
    await daemon?.stop();
  }
  return [];
}

async function runAgents(host: ReturnType<typeof describeHost>): Promise<void> {
  for (const agent of agents) {
    const missing = agentMissing(agent);
    if (missing !== undefined) {
      process.stdout.write(JSON.stringify({ name: `agent_hooks.${agent}`, skipped: missing }) + '\n');
      continue;
    }
    // the agent without hooks first, then with the hook, one run each of `calls` tool calls
    // without and with the hook in alternating rounds, so the load of a shared host falls on both alike
    const base: number[] = [];
    const hooked: number[] = [];
    for (let round = 0; round < rounds; round += 1) {
      base.push(...(await latencies(agent, undefined, `base${round}`)));
      hooked.push(
        ...(await latencies(agent, { [preToolEvent(agent)]: commandFor(agent) }, `hooked${round}`)),
      );
    }
    const result = {
      name: `agent_hooks.${agent}`,
      calls: calls * rounds,
      hook_command: withProvd ? 'provd-hook' : hookCommand,
      base_p50_ms: percentileMs(base, 50),
      base_p99_ms: percentileMs(base, 99),
      hook_p50_ms: percentileMs(hooked, 50),
      hook_p99_ms: percentileMs(hooked, 99),
      added_p50_ms: Number((percentileMs(hooked, 50) - percentileMs(base, 50)).toFixed(3)),
      added_p99_ms: Number((percentileMs(hooked, 99) - percentileMs(base, 99)).toFixed(3)),
      ...host,
    };
    process.stdout.write(JSON.stringify(result) + '\n');
  }
}

await benchMain({
  name: 'agent-hooks.bench',
  deadlineMs: agents.length * 2 * rounds * (timeoutMs + 10_000),
  isGuard: false,
  run,
  cleanup: () => rmSync(scratch, { recursive: true, force: true }),
});
