/** `provd watch [--run RUN] [--agent NAME] -- AGENT ARGS...`: starts an agent in a cgroup of its own, bound to a run. */
import { basename } from 'node:path';
import { Command, Option } from 'clipanion';
import typia from 'typia';
import type { WatchAnswer, WatchEndAnswer } from '../../agents/watch/watch-answer.js';
import type { WatchedAgent as AgentName } from '../../agents/watch/watch-request.js';
import { ProvdError } from '../../shared/errors.js';
import { randomId } from '../../shared/random-id.js';
import { postDaemon } from '../daemon-client.js';
import { DaemonClientCommand } from '../daemon-client-command.js';
import { daemonErrorOf } from '../daemon-error.js';
import { visible } from '../output/style.js';
import { exitStatusOf, WatchedAgent, type AgentExit } from '../watched-agent.js';

/** provd failed (no daemon, refused): the agent did not run, as `provd record` says it. */
const exitProvdFailed = 125;
const agentNames: readonly AgentName[] = ['claude', 'codex', 'gemini'];
const requestTimeoutMs = 60_000;

export class WatchCommand extends DaemonClientCommand {
  static override paths = [['watch']];

  static override usage = Command.Usage({
    description: 'Start an agent in a cgroup of its own, bound to a new run',
    details: `
      Creates the run (\`--run\`, else a new \`run_…\` id) and starts AGENT with ARGS in a cgroup of
      its own that the daemon binds to the run before the agent's first instruction runs, so every
      process the agent and its tool calls start is in the run (\`control_plane\` binding, method
      \`cgroup\`, evidence \`kernel_correlated\`). The daemon makes the cgroup and moves the agent in;
      the agent runs as you, on your terminal, with your environment minus \`PROVD_AUTH_TOKEN\` and
      \`PROVD_AUTH_TOKEN_FILE\`, plus \`PROVD_RUN=<run>\` (provd's hooks file the session under it).
      \`--agent\` (else AGENT's name: claude, codex, gemini) is stored on the run. When the agent
      exits the run is sealed; processes it left stay in the cgroup and in the run until they exit.
      The \`--\` is required: what follows it is the agent's, options included.

      Exit code: the agent's own; 128+N when signal N ended it; 125 when provd failed and the agent
      was not started (no daemon, a run id taken, no cgroup v2, not allowed to make cgroups); 2 for
      a command line that cannot be used.
    `,
    examples: [
      ['Watch Claude Code', '$0 watch -- claude'],
      ['Watch Codex in a named run', '$0 watch --run fix-login -- codex exec "fix the login test"'],
    ],
  });

  run = Option.String('--run', { description: 'the run to create (default: a new run_… id)' });
  agent = Option.String('--agent', { description: 'the agent (default: from AGENT: claude, codex, gemini)' });
  argv = Option.Rest({ name: 'AGENT ARGS', required: 1 });

  protected async executeAt(baseUrl: string): Promise<number> {
    const { stderr } = this.context;
    const agent = this.agentName();
    if (agent === undefined) return this.usageError(`--agent must be one of ${agentNames.join(', ')}`);
    if (!dashedBefore(this.argv))
      return this.usageError("put -- before the agent's command: provd watch [--run RUN] -- AGENT ARGS...");
    const run = this.run ?? randomId('run_');
    const watched = WatchedAgent.spawn(this.argv, run);
    const start = await this.ask<WatchAnswer>(baseUrl, '/v1/watch', {
      run_id: run,
      ...(agent !== null && { agent }),
      pid: watched.pid ?? 0,
      nonce: watched.nonce,
    });
    if (typeof start === 'string' || !typia.is<WatchAnswer>(start)) {
      await watched.refuse();
      // the daemon's refusals say it already; an unreachable daemon's do not
      const why = typeof start === 'string' ? start : 'unexpected answer from the daemon';
      stderr.write(
        `provd: ${why.endsWith('the agent was not started') ? why : `${why}; the agent was not started`}\n`,
      );
      return exitProvdFailed;
    }
    stderr.write(
      `provd: watching ${visible(start.command)} in run ${start.run_id} (cgroup ${start.cgroup.path})\n`,
    );
    watched.go();
    const exit = await watched.exited();
    const end = await this.ask<WatchEndAnswer>(baseUrl, '/v1/watch/end', {
      run_id: run,
      nonce: watched.nonce,
      exit_code: exit.exitCode,
      signal: exit.signal,
    });
    stderr.write(`provd: ${endLine(run, exit, end)}\n`);
    return exitStatusOf(exit);
  }

  /** The agent named by --agent, else by AGENT's file name; null: none provd knows; undefined: a bad --agent. */
  private agentName(): AgentName | null | undefined {
    const named = this.agent ?? basename(this.argv[0] ?? '');
    const known = agentNames.find((name) => name === named);
    return known ?? (this.agent === undefined ? null : undefined);
  }

  private usageError(message: string): number {
    return this.refuseUsage(new ProvdError('PROVD_ERR_CLI_USAGE', message));
  }

  /** POSTs a body; the answer's body on 200, else the error's words. */
  private async ask<T>(baseUrl: string, path: string, body: object): Promise<T | string> {
    try {
      const answer = await postDaemon(baseUrl, path, Buffer.from(JSON.stringify(body)), {
        contentType: 'application/json',
        idleTimeoutMs: requestTimeoutMs,
      });
      if (answer.status === 200) return answer.body as T;
      return daemonErrorOf(answer.body) ?? `unexpected answer from the daemon (HTTP ${answer.status})`;
    } catch (error) {
      return error instanceof ProvdError
        ? `${error.code}: ${error.message}`
        : `PROVD_ERR_CLI_UNREACHABLE: cannot reach the daemon at ${baseUrl}: ${(error as Error).message}`;
    }
  }
}

/**
 * Whether the command line put `--` right before AGENT: without it, the agent's own options
 * (`claude -p`) would be read as provd's. clipanion drops the `--`, so the raw argv is looked at.
 */
function dashedBefore(argv: readonly string[], raw: readonly string[] = process.argv.slice(2)): boolean {
  const dash = raw.indexOf('--');
  return dash >= 0 && raw.length - dash - 1 === argv.length && raw[dash + 1] === argv[0];
}

/** One line: how the agent ended, and what its run says of what it left. */
function endLine(run: string, exit: AgentExit, end: WatchEndAnswer | string): string {
  const how = exit.signal !== null ? `killed by ${exit.signal}` : `exit ${exit.exitCode}`;
  if (typeof end === 'string')
    return `the agent ended (${how}), but its run ${run} could not be ended: ${end}`;
  const left =
    end.processes_left === 0
      ? ''
      : `; ${end.processes_left} of its processes still run in its cgroup, bound to the run until they exit`;
  return `run ${run} ended: the agent ended (${how}), sealed (${end.object_hash})${left}`;
}
