/** `provd summary RUN`: what a run did, in counts and top lists. */
import { Command } from 'clipanion';
import typia from 'typia';
import type { ObservabilitySummary } from '../../telemetry/summary.sql.js';
import type { TimelineSession } from '../../views/timeline/timeline-session.js';
import { isFailedRead, readDaemon, unreachableExitCode } from '../output/daemon-read.js';
import { writeJson } from '../output/json-out.js';
import { sessionFacts } from '../render/session-summary-text.js';
import { formatSummary } from '../render/summary-text.js';
import { RunQueryCommand } from '../run-query-command.js';

export class SummaryCommand extends RunQueryCommand {
  static override paths = [['summary']];

  static override usage = Command.Usage({
    description: 'Summarize a run: its events, tool calls, processes, files, destinations and graph',
    details: `
      Prints \`GET /v1/observe/summary\` as labelled lines: the run's events (by type and evidence
      level, with their span in UTC), tool calls and bindings, processes, the most touched files,
      network destinations and DNS names, recorded coverage gaps, and its provenance graph (objects,
      the last signed checkpoint, the last verify). For an agent session (a run its hooks wrote),
      then its prompts, its tool calls by decision (allowed, denied, failed), what each one touched
      in brief, the denied ones with their reasons, and how many loader and locale opens were
      folded (from the session view of \`GET /v1/timeline\`). With \`--json\`, prints the
      \`provenance.observability_summary/v1\` body unchanged.

      Exit code 0 when printed, 1 when the daemon answered an error (an unknown run, a wrong token),
      2 when it cannot be reached or for bad usage.
    `,
    examples: [['What a run did', '$0 summary run-1']],
  });

  protected async executeAt(baseUrl: string): Promise<number> {
    const { stdout, stderr } = this.context;
    const query = new URLSearchParams({ run: this.run });
    const read = await readDaemon(baseUrl, `/v1/observe/summary?${query.toString()}`, stderr);
    if (isFailedRead(read)) return read.exitCode;
    if (this.json) writeJson(stdout, read.body);
    else if (typia.is<ObservabilitySummary>(read.body)) {
      const session = await readDaemon(
        baseUrl,
        `/v1/timeline?${new URLSearchParams({ run: this.run, view: 'session' }).toString()}`,
        stderr,
      );
      if (isFailedRead(session)) return session.exitCode;
      const facts =
        typia.is<TimelineSession>(session.body) && session.body.agent_session
          ? sessionFacts(session.body)
          : [];
      stdout.write(formatSummary(read.body, this.style, facts));
    } else {
      stderr.write(
        'provd: unexpected answer from the daemon (not a provenance.observability_summary/v1 body)\n',
      );
      return unreachableExitCode;
    }
    return 0;
  }
}
