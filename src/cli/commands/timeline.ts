/** `provd timeline RUN`: a run's timeline as a table, or with `--causality` as a tree. */
import { Command, Option } from 'clipanion';
import typia from 'typia';
import { ProvdError } from '../../shared/errors.js';
import type { TimelineCausality } from '../../views/timeline/timeline-causality.js';
import type { TimelineSession } from '../../views/timeline/timeline-session.js';
import type { TimelineTable } from '../../views/timeline/timeline-table.js';
import { isFailedRead, readDaemon, unreachableExitCode } from '../output/daemon-read.js';
import { writeJson } from '../output/json-out.js';
import { formatCausality } from '../render/causality-text.js';
import { formatSession } from '../render/session-text.js';
import { formatTimeline } from '../render/timeline-text.js';
import { morePagesHint, pageQuery, RunQueryCommand } from '../run-query-command.js';

export class TimelineCommand extends RunQueryCommand {
  static override paths = [['timeline']];

  static override usage = Command.Usage({
    description: "Print a run's timeline: tool calls, bindings and runtime events in time order",
    details: `
      For an agent session (a run an agent's hooks wrote), prints the session view of
      \`GET /v1/timeline\` as a tree: each prompt, each tool call with the gate's decision, its input,
      result and duration, the processes whose events carry its id, and what they did, each with its
      evidence level; a denied tool call says that nothing ran. The loader's and locale's read-only
      opens of each exec are counted on one line; \`--all\` lists them. \`--session\` asks for the
      session view whatever the run (with \`--json\`: its body).

      For any other run, prints one page of \`GET /v1/timeline\` (view \`table\`) as aligned columns: time (UTC), kind,
      tool call, evidence level and a one-line summary; stderr names the \`--cursor\` of the next
      page when more follow. With \`--causality\`, prints the causality view as a tree: the run, its
      tool calls, their processes nested by parent, and each process's first events; what a bound
      cut is counted on its own line. The table and the tree leave out the loader's and locale's opens and say
      on their last line how many the run has; \`--all\` lists them, marked \`[loader]\` (pass it with
      each \`--cursor\` of its pages). With \`--json\`, prints the \`provenance.timeline/v1\` body.

      Exit code 0 when printed, 1 when the daemon answered an error (an unknown run, a bad cursor, a
      wrong token: its code and message on stderr), 2 when it cannot be reached or for bad usage.
    `,
    examples: [
      ['A run in time order', '$0 timeline run-1'],
      ['Who started what', '$0 timeline run-1 --causality'],
      ["An agent session with the loader's and locale's opens", '$0 timeline SESSION --all'],
      ["A run's table with the loader's and locale's opens", '$0 timeline run-1 --all --limit 50'],
    ],
  });

  causality = Option.Boolean('--causality', false, {
    description: 'print the causality tree instead of the table',
  });
  session = Option.Boolean('--session', false, {
    description: 'print the agent session view (with --json: its body); the default for an agent session',
  });
  all = Option.Boolean('--all', false, {
    description: "list the loader's and locale's opens of each exec (every view; default: counted apart)",
  });
  limit = Option.String('--limit', { description: 'entries per page of the table, 1..1000 (default 100)' });
  cursor = Option.String('--cursor', { description: 'the page after the one that named this cursor' });

  protected async executeAt(baseUrl: string): Promise<number> {
    const { stdout, stderr } = this.context;
    let query: URLSearchParams;
    try {
      if (this.causality && (this.limit !== undefined || this.cursor !== undefined)) {
        throw new ProvdError(
          'PROVD_ERR_CONFIG_INVALID',
          '--causality is one tree: --limit and --cursor page the table only',
        );
      }
      const paged = this.limit !== undefined || this.cursor !== undefined;
      if (this.session && (this.causality || paged)) {
        throw new ProvdError(
          'PROVD_ERR_CONFIG_INVALID',
          '--session is the session view: not with --causality, --limit or --cursor',
        );
      }
      query = pageQuery(this.run, this.limit, this.cursor);
    } catch (error) {
      return this.refuseUsage(error);
    }
    // the session view for an agent session; a run no hook wrote reads as before (--json: the table)
    const paged = query.has('limit') || query.has('cursor');
    if (this.session || (!this.causality && !paged && (this.all || !this.json))) {
      const session = new URLSearchParams({
        run: this.run,
        view: 'session',
        ...(this.all ? { all: 'true' } : {}),
      });
      const read = await readDaemon(baseUrl, `/v1/timeline?${session.toString()}`, stderr);
      if (isFailedRead(read)) return read.exitCode;
      if (!typia.is<TimelineSession>(read.body)) {
        stderr.write('provd: unexpected answer from the daemon (not a provenance.timeline/v1 body)\n');
        return unreachableExitCode;
      }
      if (read.body.agent_session || this.session) {
        if (this.json) writeJson(stdout, read.body);
        else stdout.write(formatSession(read.body, this.style));
        return 0;
      }
    }
    query.set('view', this.causality ? 'causality' : 'table');
    if (this.all) query.set('all', 'true');
    const read = await readDaemon(baseUrl, `/v1/timeline?${query.toString()}`, stderr);
    if (isFailedRead(read)) return read.exitCode;
    if (this.json) {
      writeJson(stdout, read.body);
      return 0;
    }
    if (this.causality && typia.is<TimelineCausality>(read.body)) {
      stdout.write(formatCausality(read.body, this.style));
    } else if (!this.causality && typia.is<TimelineTable>(read.body)) {
      stdout.write(formatTimeline(read.body, this.style));
      const command = `timeline ${this.run}${this.all ? ' --all' : ''}`;
      stderr.write(morePagesHint('entries', command, read.body.next_cursor));
    } else {
      stderr.write('provd: unexpected answer from the daemon (not a provenance.timeline/v1 body)\n');
      return unreachableExitCode;
    }
    return 0;
  }
}
