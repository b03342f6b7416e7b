/** `provd verify RUN`: verifies a run's evidence chain and says the verdict first. */
import { Command } from 'clipanion';
import typia from 'typia';
import type { VerifyResult } from '../../provenance/verify-result.js';
import { isFailedRead, readDaemon, unreachableExitCode } from '../output/daemon-read.js';
import { writeJson } from '../output/json-out.js';
import { formatVerify } from '../render/verify-text.js';
import { RunQueryCommand } from '../run-query-command.js';

/** Exit code when no verdict came: verification could not complete (503) or the daemon refused. */
const noVerdictExitCode = 3;

export class VerifyCommand extends RunQueryCommand {
  static override paths = [['verify']];

  static override usage = Command.Usage({
    description: "Verify a run's evidence chain",
    details: `
      Asks \`GET /v1/graph/verify\` to check the run's object hashes, parent relations and the
      links from policy decisions to signals, and prints the verdict first (\`ok\`, \`failed\` or
      \`unavailable\` with its counts), then each issue. With \`--json\`, prints the
      \`provenance.verify/v1\` body unchanged.

      Exit code 0 when the chain verified ok, 1 when verification found errors (\`failed\`), 2 when
      the daemon cannot be reached or for bad usage (a missing RUN, a malformed \`--url\`), 3 when
      no verdict came: verification could not complete (\`unavailable\`), or the daemon refused
      (an unknown run, a wrong token).
    `,
    examples: [
      ['Verify a run', '$0 verify run-1'],
      ['Verify in a script', '$0 verify run-1 --json > verify.json || echo "not verified: $?"'],
    ],
  });

  protected async executeAt(baseUrl: string): Promise<number> {
    const { stdout, stderr } = this.context;
    const read = await readDaemon(
      baseUrl,
      `/v1/graph/verify?${new URLSearchParams({ run: this.run }).toString()}`,
      stderr,
      {
        expected: [200, 503],
        errorExitCode: noVerdictExitCode,
      },
    );
    if (isFailedRead(read)) return read.exitCode;
    if (!typia.is<VerifyResult>(read.body)) {
      stderr.write(
        `provd: unexpected answer from the daemon (HTTP ${read.status}, not a provenance.verify/v1 body)\n`,
      );
      return unreachableExitCode;
    }
    if (this.json) writeJson(stdout, read.body);
    else stdout.write(formatVerify(read.body, this.style));
    return { ok: 0, failed: 1, unavailable: noVerdictExitCode }[read.body.status];
  }
}
