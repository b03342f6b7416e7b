/** What every command that talks to the daemon shares: its `--url` option, checked one way. */
import { Command, Option } from 'clipanion';
import { ProvdError } from '../shared/errors.js';
import { resolveDaemonUrl } from './daemon-client.js';

/** Exit code of bad usage: an unknown or malformed option, an unreadable FILE (as Unix tools do). */
export const usageExitCode = 2;

/** A command that reaches the daemon over HTTP at `--url`, else `$PROVD_URL`, else the default. */
export abstract class DaemonClientCommand extends Command {
  url = Option.String('--url', {
    description: 'daemon base URL (default $PROVD_URL, else http://127.0.0.1:8574)',
  });

  /** Runs the command against the checked base URL. */
  protected abstract executeAt(baseUrl: string): Promise<number>;

  async execute(): Promise<number> {
    let baseUrl: string;
    try {
      baseUrl = resolveDaemonUrl(this.url);
    } catch (error) {
      return this.refuseUsage(error);
    }
    return this.executeAt(baseUrl);
  }

  /** Writes a PROVD_ERR_CONFIG_INVALID (or any ProvdError) as `provd: CODE: message`; exit 2. */
  protected refuseUsage(error: unknown): number {
    if (!(error instanceof ProvdError)) throw error;
    this.context.stderr.write(`provd: ${error.code}: ${error.message}\n`);
    return usageExitCode;
  }
}
