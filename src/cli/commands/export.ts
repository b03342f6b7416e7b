/** `provd export`: a run, or the events of a time range, as Hive-partitioned Parquet files under --out. */
import { Command, Option } from 'clipanion';
import { ProvdError } from '../../shared/errors.js';
import { fetchDaemonBytes } from '../daemon-client.js';
import { DaemonClientCommand } from '../daemon-client-command.js';
import { maxExportArchiveBytes } from '../../views/export/export-limits.js';
import { extractExport } from '../export-files.js';
import { refuseAnswer } from '../output/daemon-read.js';

/** Past the daemon's own 120 s for writing the export, and the transfer. */
const exportTimeoutMs = 180_000;

export class ExportCommand extends DaemonClientCommand {
  static override paths = [['export']];

  static override usage = Command.Usage({
    description: 'Export a run, or a time range, as Hive-partitioned Parquet files',
    details: `
      Asks the daemon for \`GET /v1/export\` and extracts the archive under \`--out\` as
      \`host=<host>/date=<YYYY-MM-DD>/run=<run>/...\` (docs/export.md). A run's bundle holds its
      events, graph objects, chain heads, signed checkpoints, artifacts, public keys and a manifest,
      and \`provd verify --bundle\` checks it with no daemon. \`--from\`/\`--to\` export the events
      captured in that range (at most 31 days), one directory per run, \`run=_none\` for events no
      run claimed. Existing files are never overwritten, and no link under \`--out\` is followed:
      the export is refused before anything is written. An answer over the daemon's own export cap
      (256 MiB), or one that is not an export archive, is refused.

      Exit code 0 when the files were written, 1 when the daemon answered an error or the files
      were refused, 2 when it cannot be reached or for bad usage.
    `,
    examples: [
      ['A run, verifiable on its own', '$0 export run-1 --out ./exports'],
      ['A day of events', '$0 export --from 2026-01-01T00:00:00Z --to 2026-01-02T00:00:00Z --out ./exports'],
    ],
  });

  run = Option.String({ required: false, name: 'RUN' });
  out = Option.String('--out', {
    required: true,
    description: 'the directory to write under (created if missing)',
  });
  from = Option.String('--from', { description: 'with --to: the start of a range, RFC 3339 (inclusive)' });
  to = Option.String('--to', { description: 'with --from: the end of a range, RFC 3339 (exclusive)' });

  protected async executeAt(baseUrl: string): Promise<number> {
    const { stdout, stderr } = this.context;
    let query: URLSearchParams;
    try {
      query = this.checkQuery();
    } catch (error) {
      return this.refuseUsage(error);
    }
    let answer;
    try {
      answer = await fetchDaemonBytes(baseUrl, `/v1/export?${query.toString()}`, {
        timeoutMs: exportTimeoutMs,
        // the daemon builds no larger archive: past it the answer is not the daemon's export
        maxBytes: maxExportArchiveBytes,
        what: "the export answer (the daemon's own cap on an export)",
      });
    } catch (error) {
      if (!(error instanceof ProvdError)) throw error;
      stderr.write(`provd: ${error.code}: ${error.message}\n`);
      return error.code === 'PROVD_ERR_CLI_UNREACHABLE' ? 2 : 1;
    }
    if (answer.status !== 200 || !answer.contentType.startsWith('application/x-tar'))
      return refuseAnswer({ status: answer.status, body: parsed(answer.bytes) }, stderr);
    try {
      const bundles = extractExport(answer.bytes, this.out, this.run === undefined ? 'range' : 'run');
      for (const dir of bundles) stdout.write(`${dir}\n`);
      stderr.write(
        bundles.length === 0
          ? `provd: exported nothing: no event was captured in the range\n`
          : `provd: exported ${bundles.length} director${bundles.length === 1 ? 'y' : 'ies'} under ${this.out}\n`,
      );
      return 0;
    } catch (error) {
      if (!(error instanceof ProvdError)) throw error;
      stderr.write(`provd: ${error.code}: ${error.message}\n`);
      return 1;
    }
  }

  /** `run`, or `from` and `to`; the daemon checks the values themselves. */
  private checkQuery(): URLSearchParams {
    const hasRange = this.from !== undefined || this.to !== undefined;
    if ((this.run === undefined) === !hasRange)
      throw new ProvdError('PROVD_ERR_CONFIG_INVALID', 'give a RUN, or --from and --to, not both');
    if (this.run !== undefined) return new URLSearchParams({ run: this.run });
    if (this.from === undefined || this.to === undefined)
      throw new ProvdError(
        'PROVD_ERR_CONFIG_INVALID',
        '--from and --to go together: a range needs both bounds',
      );
    return new URLSearchParams({ from: this.from, to: this.to });
  }
}

function parsed(bytes: Uint8Array): unknown {
  try {
    return JSON.parse(Buffer.from(bytes).toString('utf8'));
  } catch {
    return undefined;
  }
}
