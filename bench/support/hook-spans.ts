/**
 * The time of each hook process from the agent starting it to its exit, measured in the kernel
 * (bpftrace, root): the "from the agent starting the hook to its answer", without the
 * agent's own work before the fork and after the exit. A hook is a process whose exec's third
 * argument (`SHELL -c HOOK`: every agent runs its command hooks so) starts with one of the given
 * command lines; its start is the task's fork time (`start_time`, CLOCK_MONOTONIC like bpftrace's
 * `nsecs`), its command's start the exec of the hook's command (a child the shell forked, as dash
 * does, or the shell's own second exec, as bash does for a last simple command), its end its exit.
 * The command's own process (the hook client) is split further by its syscalls: its first
 * `connect` (exec to connect: its start and reading the payload on stdin), its first `recvfrom`
 * that returned bytes (connect to answer: the daemon's share), and its exit.
 */
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';

/** One hook process: the ms from the agent's fork to the command's exec (the shell), and to its exit. */
export interface HookSpan {
  /** Index of the command line it matched. */
  marker: number;
  /** Fork to the hook command's exec: the agent's spawn and the shell's start. */
  shellMs: number;
  /** Fork to exit: what the agent waits for. */
  totalMs: number;
  /** The command's exec, connect, first answer bytes and exit, ms after the fork; null when it never connected (`cat`). */
  client: { connectMs: number; answerMs: number; exitMs: number } | null;
  /** CLOCK_MONOTONIC ns of the command's connect and answer (0 when none): to find the daemon's trace of the hook. */
  connectNs: bigint;
  answerNs: bigint;
}

/** bpftrace compares this many bytes of the command line (its strings are 64 bytes by default). */
const markerBytes = 60;

/**
 * The bpftrace program: one `span MARKER TID FORK_NS COMMAND_NS EXIT_NS CONNECT_NS ANSWER_NS
 * COMMAND_EXIT_NS` line per hook process (0 for what did not happen). @cmd maps the command's pid
 * to its hook's.
 */
function program(markers: readonly string[]): string {
  const matches = markers.map((marker, index) => {
    const prefix = marker.slice(0, markerBytes);
    if (/["\\]/.test(prefix)) throw new Error(`hook command ${marker} has a quote or backslash`);
    return `tracepoint:syscalls:sys_enter_execve /strncmp(str(*(args->argv + 2)), "${prefix}", ${prefix.length}) == 0/ { @hook[tid] = curtask->start_time; @marker[tid] = ${index}; }`;
  });
  return `${matches.join('\n')}
tracepoint:sched:sched_process_fork /@hook[pid]/ { @child[args->child_pid] = pid; }
tracepoint:sched:sched_process_exec /@hook[pid]/ { @execs[pid] = @execs[pid] + 1; if (@execs[pid] == 2) { @command[pid] = nsecs; @cmd[pid] = pid; } }
tracepoint:sched:sched_process_exec /@child[pid]/ { if (@command[@child[pid]] == 0) { @command[@child[pid]] = nsecs; @cmd[pid] = @child[pid]; } }
tracepoint:syscalls:sys_enter_connect /@cmd[pid]/ { if (@connect[@cmd[pid]] == 0) { @connect[@cmd[pid]] = nsecs; } }
tracepoint:syscalls:sys_exit_recvfrom /@cmd[pid] && args->ret > 0/ { if (@answer[@cmd[pid]] == 0) { @answer[@cmd[pid]] = nsecs; } }
tracepoint:sched:sched_process_exit /tid == pid/ {
  if (@cmd[tid]) { @cmdexit[@cmd[tid]] = nsecs; }
  if (@hook[tid]) {
    printf("span %d %d %lld %lld %lld %lld %lld %lld\\n", @marker[tid], tid, @hook[tid], @command[tid], nsecs, @connect[tid], @answer[tid], @cmdexit[tid]);
    delete(@hook[tid]); delete(@marker[tid]); delete(@command[tid]); delete(@execs[tid]);
    delete(@connect[tid]); delete(@answer[tid]); delete(@cmdexit[tid]);
  }
  delete(@child[tid]); delete(@cmd[tid]);
}
END { clear(@hook); clear(@marker); clear(@command); clear(@execs); clear(@child); clear(@cmd); clear(@connect); clear(@answer); clear(@cmdexit); }`;
}

/** A running bpftrace that collects hook spans; `take()` returns those since the last take. */
export class HookSpanTracer {
  private output = '';
  private taken = 0;

  private constructor(private readonly child: ChildProcess) {
    child.stdout!.on('data', (chunk: Buffer) => (this.output += chunk.toString()));
  }

  /** Starts tracing `markers` (hook command lines); why not, when bpftrace or root is missing. */
  static async start(markers: readonly string[]): Promise<HookSpanTracer | string> {
    if (process.getuid?.() !== 0) return 'not root';
    try {
      execFileSync('bpftrace', ['--version'], { stdio: 'ignore' });
    } catch {
      return 'bpftrace is not installed';
    }
    if (!existsSync('/sys/kernel/tracing/events'))
      execFileSync('mount', ['-t', 'tracefs', 'tracefs', '/sys/kernel/tracing'], { stdio: 'inherit' });
    const child = spawn('bpftrace', ['-e', program(markers)], { stdio: ['ignore', 'pipe', 'pipe'] });
    let stderr = '';
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    await new Promise<void>((resolve, reject) => {
      const onData = (chunk: Buffer): void => {
        if (!chunk.toString().includes('Attaching')) return;
        child.stdout.off('data', onData);
        resolve();
      };
      child.stdout.on('data', onData);
      child.once('exit', (code) =>
        reject(new Error(`bpftrace exited with ${code} before attaching: ${stderr}`)),
      );
    });
    return new HookSpanTracer(child);
  }

  /** The spans whose hook exited since the last call. */
  take(): HookSpan[] {
    const lines = this.output.split('\n');
    const complete = lines.slice(this.taken, lines.length - 1);
    this.taken = lines.length - 1;
    return complete.flatMap((line) => {
      const fields = /^span (\d+) \d+ (\d+) (\d+) (\d+) (\d+) (\d+) (\d+)$/.exec(line);
      if (fields === null) return [];
      const [fork, command, exit, connect, answer, commandExit] = fields.slice(2).map(BigInt) as [
        bigint,
        bigint,
        bigint,
        bigint,
        bigint,
        bigint,
      ];
      const ms = (from: bigint, to: bigint): number => Number(to - from) / 1e6;
      const client =
        connect === 0n || answer === 0n || commandExit === 0n
          ? null
          : { connectMs: ms(fork, connect), answerMs: ms(fork, answer), exitMs: ms(fork, commandExit) };
      return [
        {
          marker: Number(fields[1]),
          // no exec seen below the shell (the hook failed to start): the whole span is the shell's
          shellMs: command === 0n ? ms(fork, exit) : ms(fork, command),
          totalMs: ms(fork, exit),
          client,
          connectNs: connect,
          answerNs: answer,
        },
      ];
    });
  }

  async stop(): Promise<void> {
    const exited = new Promise((resolve) => this.child.once('exit', resolve));
    this.child.kill('SIGINT');
    await exited;
  }
}
