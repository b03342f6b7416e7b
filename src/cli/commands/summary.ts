/** `provd summary RUN`: what a run did, in counts and top lists. */
import { Command } from 'clipanion';
import typia from 'typia';
import type { ObservabilitySummary } from '../../telemetry/observability-summary.js';
import type { TimelineSession } from '../../views/timeline/timeline-session.js';
import { isFailedRead, readDaemon } from '../output/daemon-read.js';
import { printDaemonBody } from '../output/print-daemon-body.js';
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

  protected executeAt(baseUrl: string): Promise<number> {
    const query = new URLSearchParams({ run: this.run });
    return printDaemonBody(baseUrl, `/v1/observe/summary?${query.toString()}`, this.context, {
      json: this.json,
      schema: 'provenance.observability_summary/v1',
      is: typia.createIs<ObservabilitySummary>(),
      render: async (summary) => {
        const session = await readDaemon(
          baseUrl,
          `/v1/timeline?${new URLSearchParams({ run: this.run, view: 'session' }).toString()}`,
          this.context.stderr,
        );
        if (isFailedRead(session)) return session;
        const facts =
          typia.is<TimelineSession>(session.body) && session.body.agent_session
            ? sessionFacts(session.body)
            : [];
        return formatSummary(summary, this.style, facts);
      },
    });
  }
}
