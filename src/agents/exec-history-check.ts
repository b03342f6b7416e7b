/**
 * What /proc cannot tell about a hook caller (hook-caller-trust.ts), told by the kernel's exec
 * events: every process on a `hook` verdict's path (the hook client, and the hook shell Claude
 * Code's dash leaves above it) was forked by the agent or by a hook shell, and a genuine hook's
 * process exec'd nothing since that fork but the hook's own command lines (`sh -c 'provd-hook
 * AGENT'`, then `provd-hook AGENT`). A tool call's process was first exec'd by the agent as the
 * tool's shell (`bash -c <the tool's command>`, Claude's `bash -c 'source <snapshot> ... eval
 * ...'`, Codex's `codex --codex-run-as-process-setup`): a model's command can exec the hook's
 * command line in place of it, but cannot undo that first exec. The sensor keeps each process's
 * recent execs as it reads them (native/src/exec-history.h) and reads its rings before it answers,
 * so an exec the kernel recorded before the hook client connected is never still on its way. The
 * history vouches only for a process the kernel captured from its fork (src/sensor/capture-coverage.ts):
 * one that ran before a binding covered it may have exec'd the tool's shell unseen.
 */
import { formatRfc3339Nanos } from '../shared/rfc3339.js';
import { processStartNs } from '../telemetry/agent-binder.js';
import type { NativeExecs } from '../sensor/binding.js';
import { isCapturedFromFork } from '../sensor/capture-coverage.js';
import { named } from './hook-caller-trust.js';
import { isHookClientLine, isHookShellLine } from './hook-command-line.js';
import type { ProcessIdentity, ProcProcess } from './proc-process.js';

/** The sensor's exec history (sensor.ts), or null when no sensor runs. */
export interface ExecHistorySource {
  /** What `pid` exec'd since `startTicks`; null when the sensor reads no rings. */
  execsSince(pid: number, startTicks: bigint): NativeExecs | null;
  /** When the kernel was last seen dropping exec events (Date.now() ms), 0 when never. */
  execLossSeenAtMs(): number;
  /** Processes held and evicted so far; null without a sensor. */
  stats(): { processes: number; evicted: number } | null;
  /**
   * Since when the kernel has captured `lineage[0]` (then its parents up), in clock ticks after
   * boot as /proc counts a start; null when nothing the sensor was given covers it (capture-coverage.ts).
   */
  capturedSince(lineage: readonly ProcessIdentity[]): bigint | null;
}

/**
 * `forged`: a process on the path exec'd something other than the hook's command lines since its
 * fork (`why` names that exec); `hook`: the sensor saw every process on the path exec only those;
 * `unchecked`: the history cannot say (`why` says why), and the /proc verdict stands; `capturedLate`
 * when that is because a process on the path ran before the sensor captured it.
 */
export type ExecCheck = { outcome: 'forged' | 'hook' | 'unchecked'; why: string; capturedLate?: true };

/** Bytes of argv the exec history keeps (native/src/exec-history.h: argvMax). */
const keptArgvBytes = 512;
/** Bytes of a refused exec's command line quoted in the reason. */
const quotedMax = 160;

/**
 * Checks the exec history of every process on a hook's `path` (caller first) for `agentName`;
 * `agent` is the process above the path (a binding of its pid covers the path's processes forked since).
 */
export function checkExecHistory(
  path: readonly ProcProcess[],
  agentName: string,
  source: ExecHistorySource | null,
  agent: ProcessIdentity | null = null,
): ExecCheck {
  if (source === null) return unchecked('no sensor runs');
  const histories: NativeExecs[] = [];
  for (const process of path) {
    const history = source.execsSince(process.pid, process.startTicks);
    if (history === null) return unchecked('the sensor reads no exec events');
    for (const exec of history.execs) {
      const argv = exec.argv.split('\0');
      if (argv[argv.length - 1] === '') argv.pop();
      // a cut command line is never confirmed on its prefix: what was cut off could make it a tool's
      if (exec.truncated)
        return {
          outcome: 'forged',
          why:
            `${named(process)} exec'd ${quote(argv)} at ${formatRfc3339Nanos(exec.wallNs)} since its fork, ` +
            `truncated (a command line past the ${keptArgvBytes} bytes the sensor keeps, or a record the kernel cut): ` +
            `a command line not seen whole is never confirmed as the hook's`,
        };
      if (!(isHookShellLine(argv, agentName) || isHookClientLine(argv, agentName)))
        return {
          outcome: 'forged',
          why:
            `${named(process)} exec'd ${quote(argv)} at ${formatRfc3339Nanos(exec.wallNs)} since its fork ` +
            `(the sensor's exec event), which is not the hook's command line: a tool call's process`,
        };
    }
    // a hook's process execs once or twice: past the kept ones it exec'd more than any hook does
    if (history.droppedSince)
      return { outcome: 'forged', why: `${named(process)} exec'd more than a hook's process ever does` };
    histories.push(history);
  }
  // before the unseen: a process evicted from the history is not one the sensor never captured
  if (histories.some((history) => history.evictedSince))
    return unchecked('the exec history was full and evicted processes since the hook started');
  const unseen = path.findIndex((_, at) => histories[at]!.execs.length === 0);
  if (unseen >= 0)
    return unchecked(
      `the sensor holds no exec of ${named(path[unseen]!)} since its fork (not captured: no binding covered it then)`,
    );
  // a process that ran before its capture began may have exec'd a tool's shell then: an empty
  // history before that is no evidence (a cgroup bound while its processes ran)
  const lineage: ProcessIdentity[] = agent === null ? [...path] : [...path, agent];
  for (let at = 0; at < path.length; at++) {
    const since = source.capturedSince(lineage.slice(at));
    if (!isCapturedFromFork(since, path[at]!.startTicks))
      return { ...unchecked(capturedLate(path[at]!, since)), capturedLate: true };
  }
  // an exec the kernel dropped (its ring full) is not in the history: a tool call's first one could be
  const lossSeenMs = source.execLossSeenAtMs();
  const oldest = path.reduce(
    (first, process) => (process.startTicks < first ? process.startTicks : first),
    path[0]!.startTicks,
  );
  if (lossSeenMs > 0 && BigInt(lossSeenMs) * 1_000_000n >= processStartNs(oldest))
    return unchecked(
      "the kernel dropped exec events (ring_full or pending_full) since the hook's processes started",
    );
  return {
    outcome: 'hook',
    why: `the sensor saw ${path.map(named).join(' and ')} exec only the hook's command lines since their fork`,
  };
}

/** Why a process captured only since `since` (clock ticks after boot; null: by nothing known) is not vouched for. */
function capturedLate(process: ProcProcess, since: bigint | null): string {
  if (since === null)
    return `no binding the sensor was given covers ${named(process)} from its fork, so its execs before it was captured are unknown`;
  const binding = 'a binding made while it ran, such as a cgroup bound over POST /v1/telemetry/bind';
  // /proc counts a start in 10 ms ticks: one in the binding's own tick may have come before it
  if (since === process.startTicks)
    return `${named(process)} started in the 10 ms clock tick its capture began in (${binding}): its execs before that may be missing`;
  const seconds = Number(since - process.startTicks) / 100;
  return `${named(process)} ran ${seconds.toFixed(2)} s before the sensor captured it (${binding}): its execs before that are not in the history`;
}

function unchecked(why: string): ExecCheck {
  return { outcome: 'unchecked', why };
}

/** A command line as a reason quotes it: words joined by spaces, cut past quotedMax characters. */
function quote(argv: readonly string[]): string {
  const text = argv.join(' ');
  return JSON.stringify(text.length > quotedMax ? `${text.slice(0, quotedMax)}...` : text);
}
