/** `provd health`: asks a running daemon for its health and prints it. */
import { Command, Option } from 'clipanion';
import typia from 'typia';
import type { DaemonHealth } from '../../daemon/daemon-health.js';
import { fetchDaemon } from '../daemon-client.js';
import { DaemonClientCommand } from '../daemon-client-command.js';
import { writeJson } from '../output/json-out.js';
import { styleOf } from '../output/style.js';
import { formatHealth } from '../render/health-text.js';

export class HealthCommand extends DaemonClientCommand {
  static override paths = [['health']];

  static override usage = Command.Usage({
    description: "Print the daemon's health, and why it is degraded or unavailable",
    details: `
      Asks \`GET /v1/health\` (no token needed) and prints its status first (\`ok\`, \`degraded\`,
      \`unavailable\`; ready or not), then why: each check that did not pass with its message, the
      recorded coverage gaps, the sensor's state, dropped records and probes that did not attach or
      lost events; then every check, the coverage status and the spool. With \`--json\`, prints the
      DaemonHealth body unchanged.

      Exit code 0 when the daemon is ready (\`ok\` or \`degraded\`), 1 when it answers 503
      (\`unavailable\`, not ready), 2 when it cannot be reached or answers something else, or for
      bad usage (a malformed \`--url\`).
    `,
    examples: [
      ['Why is it degraded?', '$0 health'],
      ['In a script', '$0 health --json | jq -r .status'],
    ],
  });

  json = Option.Boolean('--json', false, { description: 'print the DaemonHealth body unchanged' });

  protected async executeAt(baseUrl: string): Promise<number> {
    const answer = await fetchDaemon(baseUrl, '/v1/health', this.context.stderr);
    if (answer === undefined) return 2;
    if (!typia.is<DaemonHealth>(answer.body) || (answer.status !== 200 && answer.status !== 503)) {
      this.context.stderr.write(`provd: unexpected answer from the daemon (HTTP ${answer.status})\n`);
      return 2;
    }
    const { stdout } = this.context;
    if (this.json) writeJson(stdout, answer.body);
    else stdout.write(formatHealth(answer.body, styleOf(stdout as { isTTY?: boolean; columns?: number })));
    return answer.body.ready ? 0 : 1;
  }
}
