/** `provd explain --event ID` (or another node): why a node is there, step by step up to its run. */
import { Command, Option } from 'clipanion';
import typia from 'typia';
import { ProvdError } from '../../shared/errors.js';
import type { ExplainResult } from '../../views/explain/explain-result.js';
import { DaemonClientCommand } from '../daemon-client-command.js';
import { printDaemonBody } from '../output/print-daemon-body.js';
import { styleOf } from '../output/style.js';
import { formatExplain } from '../render/explain-text.js';

export class ExplainCommand extends DaemonClientCommand {
  static override paths = [['explain']];

  static override usage = Command.Usage({
    description: 'Explain a node: its causal path to the run and the basis of each step',
    details: `
      Asks \`GET /v1/graph/explain\` about one node, named by one of \`--event\`, \`--process\`,
      \`--tool-call\`, \`--file\` (with \`--run\`: a path means something only within a run),
      \`--risk\`, \`--artifact\` or \`--run\` (\`--run\` also narrows the others to one run). Prints
      the node, then each step up to the run with how it is known (the relation, the method, its
      confidence and evidence level, the binding); for a file, the events that touched it. With
      \`--json\`, prints the \`provenance.explain/v1\` body unchanged.

      Exit code 0 when printed, 1 when the daemon answered an error (an unknown node or run, a
      wrong token), 2 when it cannot be reached or for bad usage (no node named, \`--file\` without
      \`--run\`).
    `,
    examples: [
      ['Why an event belongs to its run', '$0 explain --event bmwzpyffw-0-0.4'],
      ['Who touched a file in a run', '$0 explain --file /root/.ssh/id_rsa --run run-1'],
    ],
  });

  event = Option.String('--event', { description: 'an event id' });
  processKey = Option.String('--process', { description: 'a process key: its exec_id, or its tgid' });
  toolCall = Option.String('--tool-call', { description: 'a tool call id' });
  file = Option.String('--file', { description: 'a file path (needs --run)' });
  risk = Option.String('--risk', { description: 'a risk id, as `provd risks` lists them' });
  artifact = Option.String('--artifact', { description: "an artifact's object hash" });
  run = Option.String('--run', { description: 'a run id: the node, or the run the others are in' });
  json = Option.Boolean('--json', false, { description: "print the daemon's JSON body unchanged" });

  protected async executeAt(baseUrl: string): Promise<number> {
    const { stdout } = this.context;
    let query: URLSearchParams;
    try {
      query = this.nodeQuery();
    } catch (error) {
      return this.refuseUsage(error);
    }
    return printDaemonBody(baseUrl, `/v1/graph/explain?${query.toString()}`, this.context, {
      json: this.json,
      schema: 'provenance.explain/v1',
      is: typia.createIs<ExplainResult>(),
      render: (explain) => formatExplain(explain, styleOf(stdout as { isTTY?: boolean; columns?: number })),
    });
  }

  /** The node flags as the query, or PROVD_ERR_CONFIG_INVALID when none names a node. */
  private nodeQuery(): URLSearchParams {
    const flags: [string, string | undefined][] = [
      ['event', this.event],
      ['process', this.processKey],
      ['tool-call', this.toolCall],
      ['file', this.file],
      ['risk', this.risk],
      ['artifact', this.artifact],
      ['run', this.run],
    ];
    const query = new URLSearchParams(
      flags.filter((flag): flag is [string, string] => flag[1] !== undefined),
    );
    if (query.size === 0) {
      throw new ProvdError(
        'PROVD_ERR_CONFIG_INVALID',
        'name a node: --event, --process, --tool-call, --file (with --run), --risk, --artifact or --run',
      );
    }
    if (this.file !== undefined && this.run === undefined) {
      throw new ProvdError(
        'PROVD_ERR_CONFIG_INVALID',
        '--file needs --run: a path means something only within a run',
      );
    }
    return query;
  }
}
