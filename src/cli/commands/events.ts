/** `provd events RUN`: a run's runtime events, one line each; `--follow` keeps printing new ones. */
import { Command, Option } from 'clipanion';
import typia from 'typia';
import { ProvdError } from '../../shared/errors.js';
import type { TelemetryEvents } from '../../telemetry/events.sql.js';
import { followEvents } from '../event-follower.js';
import { isFailedRead, readDaemon, unreachableExitCode } from '../output/daemon-read.js';
import { writeJson } from '../output/json-out.js';
import { EventLines, formatEvents } from '../render/events-text.js';
import { morePagesHint, pageQuery, RunQueryCommand } from '../run-query-command.js';

export class EventsCommand extends RunQueryCommand {
  static override paths = [['events']];

  static override usage = Command.Usage({
    description: "List a run's runtime events, or follow them as they arrive",
    details: `
      Prints one page of \`GET /v1/telemetry/events\` (in the order the daemon stored them): each
      event's capture time (UTC), type, process (\`comm[pid]\`), tool call, evidence level and what
      it acted on (argv, path, destination, DNS name). stderr names the \`--cursor\` of the next
      page when more follow. \`--type\` keeps one event type (\`execve\`, \`file_write\`,
      \`network_connect\`, ...). With \`--json\`, prints the \`provenance.telemetry_events/v1\` body.

      With \`--follow\`, prints every event of the run (after \`--cursor\`, if given), then each new one
      once as the daemon stores it, polling every second, until interrupted (Ctrl-C, SIGINT: exit
      0). Events are followed by store position, so one stored late with an earlier capture time
      is printed when it arrives, not skipped. With \`--json\`, follow prints NDJSON: one event
      object a line.

      Exit code 0 when printed (or following was interrupted), 1 when the daemon answered an error
      (an unknown run or type, a bad cursor, a wrong token), 2 when it cannot be reached (also when
      it goes away while following) or for bad usage.
    `,
    examples: [
      ['The first events of a run', '$0 events run-1'],
      ['Its file writes', '$0 events run-1 --type file_write'],
      ['Follow it as NDJSON', '$0 events run-1 --follow --json | jq .type'],
    ],
  });

  type = Option.String('--type', { description: 'only events of this type' });
  follow = Option.Boolean('--follow,-f', false, {
    description: 'keep printing new events until interrupted',
  });
  limit = Option.String('--limit', {
    description: 'events per page, 1..1000 (default 100); not with --follow',
  });
  cursor = Option.String('--cursor', { description: 'start after the page that named this cursor' });

  protected async executeAt(baseUrl: string): Promise<number> {
    const { stdout, stderr } = this.context;
    let query: URLSearchParams;
    try {
      if (this.follow && this.limit !== undefined) {
        throw new ProvdError(
          'PROVD_ERR_CONFIG_INVALID',
          '--limit pages a listing: --follow prints every event',
        );
      }
      query = pageQuery(this.run, this.limit, this.cursor);
    } catch (error) {
      return this.refuseUsage(error);
    }
    if (this.type !== undefined) query.set('type', this.type);
    if (this.follow) return this.followAt(baseUrl, query);
    const read = await readDaemon(baseUrl, `/v1/telemetry/events?${query.toString()}`, stderr);
    if (isFailedRead(read)) return read.exitCode;
    if (this.json) {
      writeJson(stdout, read.body);
      return 0;
    }
    if (!typia.is<TelemetryEvents>(read.body)) {
      stderr.write('provd: unexpected answer from the daemon (not a provenance.telemetry_events/v1 body)\n');
      return unreachableExitCode;
    }
    stdout.write(formatEvents(this.run, read.body.events, this.style));
    // the cursor is bound to the type filter: the next page's command names it again
    const command = `events ${this.run}${this.type === undefined ? '' : ` --type ${this.type}`}`;
    stderr.write(morePagesHint('events', command, read.body.next_cursor));
    return 0;
  }

  /** Follows until SIGINT (exit 0), printing a header first on a human stream. */
  private async followAt(baseUrl: string, query: URLSearchParams): Promise<number> {
    const { stdout, stderr } = this.context;
    const stop = new AbortController();
    const onSignal = (): void => stop.abort();
    process.once('SIGINT', onSignal);
    // a reader that went away (`| head`) ends following, as it ends tail -f
    stdout.once('error', onSignal);
    const lines = new EventLines(this.style);
    if (!this.json) stdout.write(lines.header());
    try {
      return await followEvents({
        baseUrl,
        query,
        stderr,
        stop: stop.signal,
        print: (event) => stdout.write(this.json ? JSON.stringify(event) + '\n' : lines.line(event)),
      });
    } finally {
      process.off('SIGINT', onSignal);
    }
  }
}
