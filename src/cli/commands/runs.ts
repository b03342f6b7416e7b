/** `provd runs`: lists the runs the daemon knows, newest first, one page at a time. */
import { Command, Option } from 'clipanion';
import typia from 'typia';
import { ProvdError } from '../../shared/errors.js';
import { maxPageLimit } from '../../model/paging.js';
import type { RunList } from '../../telemetry/run-list.js';
import { DaemonClientCommand } from '../daemon-client-command.js';
import { isFailedRead, readDaemon, unreachableExitCode } from '../output/daemon-read.js';
import { formatRunsTable } from '../runs-table.js';

export class RunsCommand extends DaemonClientCommand {
  static override paths = [['runs']];

  static override usage = Command.Usage({
    description: 'List the runs the daemon knows, newest first',
    details: `
      Prints one page of \`GET /v1/runs\` as a table: each run with when a binding first named
      it, its bindings and tool calls, and its events (all, kernel_correlated, risky) with the
      10-second windows they span. With \`--json\`, prints the \`provenance.runs/v1\` body instead.
      When more runs follow, stderr names the \`--cursor\` of the next page.

      Exit code 0 when the page was printed, 1 when the daemon answered an error (its code and
      message on stderr), 2 when it cannot be reached or for bad usage (a malformed option or
      \`--url\`).
    `,
    examples: [
      ['The newest runs', '$0 runs'],
      ['Every run as JSON pages', '$0 runs --json --limit 1000'],
    ],
  });

  limit = Option.String('--limit', { description: `runs per page, 1..${maxPageLimit} (default 100)` });
  cursor = Option.String('--cursor', { description: 'the page after the one that named this cursor' });
  json = Option.Boolean('--json', false, { description: 'print the provenance.runs/v1 body as JSON' });

  protected async executeAt(baseUrl: string): Promise<number> {
    const { stdout, stderr } = this.context;
    let query: URLSearchParams;
    try {
      query = this.checkQuery();
    } catch (error) {
      return this.refuseUsage(error);
    }
    const read = await readDaemon(baseUrl, `/v1/runs?${query.toString()}`, stderr);
    if (isFailedRead(read)) return read.exitCode;
    if (!typia.is<RunList>(read.body)) {
      stderr.write('provd: unexpected answer from the daemon (not a provenance.runs/v1 body)\n');
      return unreachableExitCode;
    }
    const page = read.body;
    stdout.write(this.json ? JSON.stringify(page, null, 2) + '\n' : formatRunsTable(page.runs));
    if (page.next_cursor !== null && !this.json) {
      stderr.write(`provd: more runs follow: provd runs --cursor ${page.next_cursor}\n`);
    }
    return 0;
  }

  /** The query string of the page asked for, or PROVD_ERR_CONFIG_INVALID naming the option. */
  private checkQuery(): URLSearchParams {
    const query = new URLSearchParams();
    if (this.limit !== undefined) {
      const limit = Number(this.limit);
      if (!/^\d+$/.test(this.limit) || limit < 1 || limit > maxPageLimit) {
        throw new ProvdError(
          'PROVD_ERR_CONFIG_INVALID',
          `--limit must be an integer 1..${maxPageLimit}, got "${this.limit}"`,
        );
      }
      query.set('limit', String(limit));
    }
    if (this.cursor !== undefined) query.set('cursor', this.cursor);
    return query;
  }
}
