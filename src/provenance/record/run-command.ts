/**
 * Runs one recorded command: argv as given (no shell interprets it), in `cwd`, as its user, with a
 * minimal environment, stdin from /dev/null, output bounded, and a timeout that kills its whole
 * tree. A fixed /bin/sh trampoline gives it the umask the daemon was started with; with a cgroup it
 * waits on fd 3 while the daemon moves it into the cgroup (a command's user may not move itself
 * there), then execs the command, so the command's first instruction already runs inside it; argv
 * reaches exec as positional parameters, never as shell text.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { Writable } from 'node:stream';
import { BoundedOutput, type CapturedOutput } from './bounded-output.js';
import type { CommandCgroup } from './command-cgroup.js';
import type { CommandUser } from './command-user.js';

/**
 * The trampolines, run by /bin/sh with the umask to give the command as $1: the daemon's own
 * (077, so its database and key are its own) is not the command's. With a cgroup, it then waits
 * until the daemon says it is in the cgroup ($2; exit 125, marked, if not), then execs argv.
 */
const trampoline =
  'umask "$1"; IFS= read -r joined <&3; exec 3<&-; [ "$joined" = joined ] || { echo "provd-record: cannot join cgroup $2" >&2; exit 125; }; shift 2; exec "$@"';
const plainTrampoline = 'umask "$1"; shift; exec "$@"';
const trampolineFailure = 'provd-record: cannot join cgroup';

/** After the command exits, how long its output pipes may stay open (a leftover holding them). */
const drainMs = 1000;

/** What to run. */
export interface CommandSpec {
  command: string;
  args: readonly string[];
  cwd: string;
  env: Record<string, string>;
  timeoutMs: number;
  maxOutputBytes: number;
  cgroup: CommandCgroup | null;
  /** Whom it runs as; null: the daemon's own user. */
  user: CommandUser | null;
  /** The file mode creation mask it starts with (the one the daemon was started with). */
  umask: number;
  /** Each chunk of output as it is read (the captured output is kept all the same). */
  onOutput?: (stream: 'stdout' | 'stderr', chunk: Buffer) => void;
  /** Called once the process exists (before its output is read). */
  onStart?: (pid: number) => void;
}

/** How it went. */
export interface CommandOutcome {
  pid: number | null;
  /** The exit status, when the command exited (not killed by a signal). */
  exitCode: number | null;
  /** The signal that ended the command, by name. */
  signal: string | null;
  timedOut: boolean;
  startedNs: bigint;
  endedNs: bigint;
  stdout: CapturedOutput;
  stderr: CapturedOutput;
  /** Why the command could not start (spawn failed, or the cgroup could not be joined). */
  startError: string | null;
  /** Processes of its tree still alive when the command exited, killed then; null without a cgroup to count them. */
  leftoverKilled: number | null;
}

const nowNs = (): bigint => process.hrtime.bigint() - hrtimeOffset;
// wall-clock ns from a monotonic source: one offset taken at load
const hrtimeOffset = process.hrtime.bigint() - BigInt(Date.now()) * 1_000_000n;

/** Runs the command to its end (or its timeout); never rejects. */
export function runCommand(spec: CommandSpec): Promise<CommandOutcome> {
  const stdout = new BoundedOutput(spec.maxOutputBytes);
  const stderr = new BoundedOutput(spec.maxOutputBytes);
  const startedNs = nowNs();
  const mask = spec.umask.toString(8).padStart(4, '0');
  const argv =
    spec.cgroup === null
      ? ['-c', plainTrampoline, 'provd-record', mask, spec.command, ...spec.args]
      : ['-c', trampoline, 'provd-record', mask, spec.cgroup.path, spec.command, ...spec.args];
  let child: ChildProcess;
  try {
    // detached: its own process group, so a timeout without a cgroup still reaches the whole tree
    child = spawn('/bin/sh', argv, {
      cwd: spec.cwd,
      env: spec.env,
      stdio: ['ignore', 'pipe', 'pipe', spec.cgroup === null ? 'ignore' : 'pipe'],
      detached: true,
      ...(spec.user !== null && { uid: spec.user.uid, gid: spec.user.gid }),
    });
  } catch (error) {
    return Promise.resolve(failedStart(startedNs, stdout, stderr, (error as Error).message));
  }
  if (child.pid !== undefined) spec.onStart?.(child.pid);
  if (spec.cgroup !== null && child.pid !== undefined)
    void moveIntoCgroup(child.pid, spec.cgroup, child.stdio[3] as Writable);
  child.stdout!.on('data', (chunk: Buffer) => {
    stdout.add(chunk);
    spec.onOutput?.('stdout', chunk);
  });
  child.stderr!.on('data', (chunk: Buffer) => {
    stderr.add(chunk);
    spec.onOutput?.('stderr', chunk);
  });
  return new Promise((resolve) => {
    let timedOut = false;
    const killTree = async (): Promise<number | null> => {
      if (spec.cgroup !== null) return spec.cgroup.killAll();
      try {
        process.kill(-child.pid!, 'SIGKILL');
      } catch {
        // the group is gone
      }
      return null;
    };
    const timer = setTimeout(() => {
      timedOut = true;
      void killTree();
    }, spec.timeoutMs);
    child.once('error', (error) => {
      clearTimeout(timer);
      resolve(failedStart(startedNs, stdout, stderr, error.message));
    });
    child.once('exit', (code, signal) => {
      clearTimeout(timer);
      const endedNs = nowNs();
      void (async () => {
        const leftoverKilled = await killTree();
        await drained(child);
        const out = stdout.finish();
        const err = stderr.finish();
        const joinFailed =
          spec.cgroup !== null && code === 125 && err.content.toString('utf8').startsWith(trampolineFailure);
        resolve({
          pid: child.pid ?? null,
          exitCode: code,
          signal,
          timedOut,
          startedNs,
          endedNs,
          stdout: out,
          stderr: err,
          startError: joinFailed ? err.content.toString('utf8').trim() : null,
          leftoverKilled,
        });
      })();
    });
  });
}

/** Writes the trampoline's pid into the cgroup, then tells it whether that worked. */
async function moveIntoCgroup(pid: number, cgroup: CommandCgroup, signal: Writable): Promise<void> {
  signal.on('error', () => undefined); // the trampoline may already be gone
  const joined = await writeFile(join(cgroup.path, 'cgroup.procs'), String(pid)).then(
    () => true,
    () => false,
  );
  signal.end(joined ? 'joined\n' : 'refused\n');
}

/** Waits for both pipes to close, at most drainMs; then cuts them. */
async function drained(child: ChildProcess): Promise<void> {
  const closed = new Promise<void>((resolve) => {
    if (child.stdout!.closed && child.stderr!.closed) resolve();
    else child.once('close', () => resolve());
  });
  const timer = new Promise<void>((resolve) => setTimeout(resolve, drainMs).unref());
  await Promise.race([closed, timer]);
  child.stdout!.destroy();
  child.stderr!.destroy();
}

function failedStart(
  startedNs: bigint,
  stdout: BoundedOutput,
  stderr: BoundedOutput,
  message: string,
): CommandOutcome {
  return {
    pid: null,
    exitCode: null,
    signal: null,
    timedOut: false,
    startedNs,
    endedNs: nowNs(),
    stdout: stdout.finish(),
    stderr: stderr.finish(),
    startError: message,
    leftoverKilled: null,
  };
}
