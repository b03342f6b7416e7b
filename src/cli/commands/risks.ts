/** `provd risks RUN`: what the policy judged risky in a run, one line a risk. */
import { Command, Option } from 'clipanion';
import typia from 'typia';
import type { SecurityRisks } from '../../security/risks.js';
import { isFailedRead, readDaemon, unreachableExitCode } from '../output/daemon-read.js';
import { writeJson } from '../output/json-out.js';
import { formatRisks } from '../render/risks-text.js';
import { morePagesHint, pageQuery, RunQueryCommand } from '../run-query-command.js';

export class RisksCommand extends RunQueryCommand {
  static override paths = [['risks']];

  static override usage = Command.Usage({
    description: "List a run's risks: the policy decisions on its events",
    details: `
      Prints one page of \`GET /v1/security/risks\`: for each risk the time of its event (UTC), its
      severity, the decision (\`kill\`, \`quarantine\`, \`deny\`; \`allow\` with an advisory), the rule,
      the tool call, the evidence level, the risk id (\`provd explain --risk ID\` explains it) and the
      reason. stderr names the \`--cursor\` of the next page when more follow. With \`--json\`,
      prints the \`provenance.security_risks/v1\` body unchanged.

      Exit code 0 when printed (risks found or not), 1 when the daemon answered an error (an
      unknown run, a bad cursor, a wrong token), 2 when it cannot be reached or for bad usage.
    `,
    examples: [['The risks of a run', '$0 risks run-1']],
  });

  limit = Option.String('--limit', { description: 'risks per page, 1..1000 (default 100)' });
  cursor = Option.String('--cursor', { description: 'the page after the one that named this cursor' });

  protected async executeAt(baseUrl: string): Promise<number> {
    const { stdout, stderr } = this.context;
    let query: URLSearchParams;
    try {
      query = pageQuery(this.run, this.limit, this.cursor);
    } catch (error) {
      return this.refuseUsage(error);
    }
    const read = await readDaemon(baseUrl, `/v1/security/risks?${query.toString()}`, stderr);
    if (isFailedRead(read)) return read.exitCode;
    if (this.json) {
      writeJson(stdout, read.body);
      return 0;
    }
    if (!typia.is<SecurityRisks>(read.body)) {
      stderr.write('provd: unexpected answer from the daemon (not a provenance.security_risks/v1 body)\n');
      return unreachableExitCode;
    }
    stdout.write(formatRisks(read.body, this.style));
    stderr.write(morePagesHint('risks', `risks ${this.run}`, read.body.next_cursor));
    return 0;
  }
}
