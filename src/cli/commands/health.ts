/** `provd health`: asks a running daemon for its health and prints it. */
import { Command } from 'clipanion';
import typia from 'typia';
import type { DaemonHealth } from '../../daemon/daemon-health.js';
import { fetchDaemon } from '../daemon-client.js';
import { DaemonClientCommand } from '../daemon-client-command.js';

export class HealthCommand extends DaemonClientCommand {
  static override paths = [['health']];

  static override usage = Command.Usage({
    description: "Print the daemon's health",
    details: `
      Prints the DaemonHealth JSON of \`GET /v1/health\`. Exit code 0 when the daemon is ready,
      1 when it answers 503 (not ready), 2 when it cannot be reached or answers something else,
      or for bad usage (a malformed \`--url\`).
    `,
  });

  protected async executeAt(baseUrl: string): Promise<number> {
    const answer = await fetchDaemon(baseUrl, '/v1/health', this.context.stderr);
    if (answer === undefined) return 2;
    if (!typia.is<DaemonHealth>(answer.body) || (answer.status !== 200 && answer.status !== 503)) {
      this.context.stderr.write(`provd: unexpected answer from the daemon (HTTP ${answer.status})\n`);
      return 2;
    }
    this.context.stdout.write(JSON.stringify(answer.body, null, 2) + '\n');
    return answer.body.ready ? 0 : 1;
  }
}
