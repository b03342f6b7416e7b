/**
 * What `provd hooks install | uninstall | print` share: `--agent`, `--project`, `--json`, the
 * request they build, and how a refused settings file is said (`FILE:LINE: why`, exit 1).
 */
import { resolve } from 'node:path';
import { Command, Option } from 'clipanion';
import { hookAgents, type HookAgent } from '../agents/install/hook-targets.js';
import type { HooksRequest } from '../agents/install/hooks-install.js';
import { SettingsSyntaxError } from '../agents/install/json-text.js';
import { usageExitCode } from './daemon-client-command.js';
import { printable } from './output/printable.js';

/** Exit code of a settings file provd refused to edit. */
export const refusedExitCode = 1;

export abstract class HooksCommand extends Command {
  agent = Option.String('--agent', { description: `the agent: ${hookAgents.join(', ')}`, required: true });
  project = Option.Boolean('--project', false, {
    description: "the current project's settings (./.claude, ./.codex, ./.gemini), not the user's",
  });
  json = Option.Boolean('--json', false, { description: 'print the outcome as JSON' });

  /** The request, or the exit code after saying on stderr what is wrong with the options. */
  protected request(socket: string | undefined, dryRun: boolean): HooksRequest | number {
    if (!(hookAgents as readonly string[]).includes(this.agent)) {
      return this.refuse(
        `--agent must be one of ${hookAgents.join(', ')}, got ${JSON.stringify(this.agent)}`,
      );
    }
    // eslint-disable-next-line no-control-regex
    if (socket !== undefined && (socket === '' || /[\u0000-\u001f\u007f]/.test(socket)))
      return this.refuse(`--socket must be a path without control characters, got ${JSON.stringify(socket)}`);
    return {
      agent: this.agent as HookAgent,
      scope: this.project ? 'project' : 'user',
      socket: socket === undefined ? null : resolve(socket),
      env: process.env,
      cwd: process.cwd(),
      dryRun,
    };
  }

  /** Runs `step`; a settings file it refuses is said as `provd: CODE: FILE:LINE: why`, exit 1. */
  protected runStep(step: () => number): number {
    try {
      return step();
    } catch (error) {
      if (!(error instanceof SettingsSyntaxError)) throw error;
      const message = `${error.file ?? '?'}:${error.line}: ${error.message} (left untouched)`;
      this.context.stderr.write(`provd: PROVD_ERR_HOOKS_SETTINGS: ${printable(message)}\n`);
      return refusedExitCode;
    }
  }

  private refuse(message: string): number {
    this.context.stderr.write(`provd: PROVD_ERR_CONFIG_INVALID: ${message}\n`);
    return usageExitCode;
  }
}
