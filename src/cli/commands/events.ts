/**
 * `provd events RUN` (a run's runtime events) or `provd events --host` (the host's, bound to no run),
 * one line each; `--follow` keeps printing new ones.
 */
import { Command, Option } from 'clipanion';
import typia from 'typia';
import { ProvdError } from '../../shared/errors.js';
import { instantParamRule, parseInstantParam } from '../../shared/instant-param.js';
import type { TelemetryEvents } from '../../telemetry/telemetry-events.js';
import type { HostEvents } from '../../telemetry/host-events.js';
import { followEvents } from '../event-follower.js';
import { isFailedRead, readDaemon, unreachableExitCode } from '../output/daemon-read.js';
import { writeJson } from '../output/json-out.js';
import { EventLines, formatEvents } from '../render/events-text.js';
import { DaemonClientCommand } from '../daemon-client-command.js';
import { styleOf, type Style } from '../output/style.js';
import { morePagesHint, pageQuery } from '../run-query-command.js';

export class EventsCommand extends DaemonClientCommand {
  static override paths = [['events']];

  static override usage = Command.Usage({
    description: "List a run's runtime events, or the host's, or follow them as they arrive",
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

      With \`--host\` instead of RUN, lists the host's events: those no binding attributed to a run
      (\`GET /v1/telemetry/host-events\`), stored only under \`provd daemon --capture host\` (the
      default, \`agents\`, captures only what bindings name). \`--since\` and \`--until\` bound their
      capture time: an RFC 3339 date-time or a duration back from now (\`10m\`, \`2h\`, \`7d\`); the
      range a duration names is fixed by the first page, so \`--cursor\` and \`--follow\` keep it.

      Exit code 0 when printed (or following was interrupted), 1 when the daemon answered an error
      (an unknown run or type, a bad cursor, a wrong token), 2 when it cannot be reached (also when
      it goes away while following) or for bad usage.
    `,
    examples: [
      ['The first events of a run', '$0 events run-1'],
      ['Its file writes', '$0 events run-1 --type file_write'],
      ['Follow it as NDJSON', '$0 events run-1 --follow --json | jq .type'],
      ["The host's execs of the last 10 minutes", '$0 events --host --since 10m --type execve'],
    ],
  });

  run = Option.String({ name: 'RUN', required: false });
  json = Option.Boolean('--json', false, { description: "print the daemon's JSON body unchanged" });
  host = Option.Boolean('--host', false, {
    description: "the host's events (bound to no run) instead of a run's",
  });
  since = Option.String('--since', {
    description: 'with --host: events captured at or after this instant (RFC 3339) or this long ago (10m)',
  });
  until = Option.String('--until', {
    description: 'with --host: events captured before this instant (RFC 3339) or this long ago',
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
      query = pageQuery(this.scope(), this.limit, this.cursor);
    } catch (error) {
      return this.refuseUsage(error);
    }
    if (this.type !== undefined) query.set('type', this.type);
    if (this.since !== undefined) query.set('since', this.since);
    if (this.until !== undefined) query.set('until', this.until);
    const path = this.host ? '/v1/telemetry/host-events' : '/v1/telemetry/events';
    if (this.follow) return this.followAt(baseUrl, path, query);
    const read = await readDaemon(baseUrl, `${path}?${query.toString()}`, stderr);
    if (isFailedRead(read)) return read.exitCode;
    if (this.json) {
      writeJson(stdout, read.body);
      return 0;
    }
    const body = this.host
      ? pageOf<HostEvents>(read.body, typia.createIs<HostEvents>())
      : pageOf<TelemetryEvents>(read.body, typia.createIs<TelemetryEvents>());
    if (body === undefined) {
      stderr.write(`provd: unexpected answer from the daemon (not a page of events)\n`);
      return unreachableExitCode;
    }
    const where = this.host ? "the host's events asked for" : `run ${this.run}`;
    stdout.write(formatEvents(where, body.events, this.style));
    // the cursor is bound to the filters: the next page's command names them again
    const filters = [
      ...(this.type === undefined ? [] : [`--type ${this.type}`]),
      ...(this.since === undefined ? [] : [`--since ${this.since}`]),
      ...(this.until === undefined ? [] : [`--until ${this.until}`]),
    ];
    const command = ['events', this.host ? '--host' : this.run!, ...filters].join(' ');
    stderr.write(morePagesHint('events', command, body.next_cursor));
    return 0;
  }

  /** The run asked for, or null with --host; PROVD_ERR_CONFIG_INVALID when both or neither are given. */
  private scope(): string | null {
    if (this.host === (this.run !== undefined))
      throw new ProvdError(
        'PROVD_ERR_CONFIG_INVALID',
        'name a RUN, or --host for the events of no run (not both)',
      );
    if (!this.host && (this.since !== undefined || this.until !== undefined))
      throw new ProvdError('PROVD_ERR_CONFIG_INVALID', '--since and --until go with --host');
    // said here, in the rule's words, before the daemon's schema answers with its pattern
    for (const [flag, value] of [
      ['--since', this.since],
      ['--until', this.until],
    ] as const)
      if (value !== undefined && parseInstantParam(value, BigInt(Date.now()) * 1_000_000n) === undefined)
        throw new ProvdError('PROVD_ERR_CONFIG_INVALID', `${flag} must be ${instantParamRule}`);
    return this.host ? null : this.run!;
  }

  /** How human output looks on this command's stdout. */
  private get style(): Style {
    return styleOf(this.context.stdout as { isTTY?: boolean; columns?: number });
  }

  /** Follows until SIGINT (exit 0), printing a header first on a human stream. */
  private async followAt(baseUrl: string, path: string, query: URLSearchParams): Promise<number> {
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
        path,
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

/** `body` when it is a page of the list asked for, else undefined. */
function pageOf<Page>(body: unknown, isPage: (body: unknown) => body is Page): Page | undefined {
  return isPage(body) ? body : undefined;
}
