/** `provd health`: asks a running daemon for its health and prints it; `--wait` waits until it is ready. */
import { Command, Option } from 'clipanion';
import typia from 'typia';
import type { DaemonHealth } from '../../daemon/daemon-health.js';
import { ProvdError } from '../../shared/errors.js';
import { fetchDaemon } from '../daemon-client.js';
import { DaemonClientCommand } from '../daemon-client-command.js';
import { logExcerpt } from '../daemon-log-excerpt.js';
import { waitForDaemon, type WaitOutcome } from '../daemon-wait.js';
import { writeJson } from '../output/json-out.js';
import { styleOf, visible } from '../output/style.js';
import { outputFileOf } from '../process-state.js';
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

      With \`--wait SECONDS\`, asks again every 250 ms until the daemon is ready and takes the token
      the CLI sends, for at most SECONDS; with \`--pid PID\` too (the daemon's process, \`$!\` after
      starting it with \`&\`), it gives up as soon as that process has ended, and shows the error
      lines of its log when its output went to a file.

      Exit code 0 when the daemon is ready (\`ok\` or \`degraded\`), 1 when it answers 503
      (\`unavailable\`, not ready), 2 when it cannot be reached or answers something else, or for
      bad usage (a malformed \`--url\`). With \`--wait\`, the code of the last answer when the time
      is up, and 2 when the daemon refuses the token or its process ended first.
    `,
    examples: [
      ['Why is it degraded?', '$0 health'],
      ['In a script', '$0 health --json | jq -r .status'],
      [
        'Start the daemon and wait until it is ready',
        '$0 daemon > /tmp/provd.log 2>&1 & $0 health --wait 60 --pid $!',
      ],
    ],
  });

  json = Option.Boolean('--json', false, { description: 'print the DaemonHealth body unchanged' });
  wait = Option.String('--wait', {
    description: 'ask again until the daemon is ready and takes the token, for at most SECONDS (1..86400)',
  });
  pid = Option.String('--pid', {
    description: "with --wait: stop waiting once this process (the daemon's) has ended, and say why",
  });

  protected async executeAt(baseUrl: string): Promise<number> {
    if (this.wait !== undefined) return this.waitUntilReady(baseUrl);
    if (this.pid !== undefined)
      return this.refuseUsage(new ProvdError('PROVD_ERR_CONFIG_INVALID', '--pid goes with --wait SECONDS'));
    const answer = await fetchDaemon(baseUrl, '/v1/health', this.context.stderr);
    if (answer === undefined) return 2;
    if (!typia.is<DaemonHealth>(answer.body) || (answer.status !== 200 && answer.status !== 503)) {
      this.context.stderr.write(`provd: unexpected answer from the daemon (HTTP ${answer.status})\n`);
      return 2;
    }
    this.print(answer.body);
    return answer.body.ready ? 0 : 1;
  }

  private print(health: DaemonHealth): void {
    const { stdout } = this.context;
    if (this.json) writeJson(stdout, health);
    else stdout.write(formatHealth(health, styleOf(stdout as { isTTY?: boolean; columns?: number })));
  }

  private async waitUntilReady(baseUrl: string): Promise<number> {
    let seconds: number;
    let pid: number | undefined;
    try {
      seconds = integerOption('--wait', this.wait!, 86_400);
      pid = this.pid === undefined ? undefined : integerOption('--pid', this.pid, 2 ** 22);
    } catch (error) {
      return this.refuseUsage(error);
    }
    const { stderr } = this.context;
    // read now: once the process has ended, /proc no longer says where its output went
    const logFile = pid === undefined ? undefined : outputFileOf(pid);
    const outcome = await waitForDaemon(baseUrl, {
      seconds,
      ...(pid !== undefined ? { pid } : {}),
      onWaiting: () =>
        stderr.write(`provd: waiting up to ${seconds} s for the daemon at ${baseUrl} to be ready\n`),
    });
    const { last } = outcome;
    if (outcome.end === 'ready' && last.kind === 'ready') {
      this.print(last.health);
      return 0;
    }
    if (outcome.end === 'ended') {
      stderr.write(`provd: the daemon (pid ${pid}) ended before it was ready${endedHow(logFile)}`);
      return 2;
    }
    stderr.write(`provd: the daemon at ${baseUrl} is not ready after ${seconds} s: ${lastState(outcome)}\n`);
    if (last.kind !== 'not_ready') return 2;
    this.print(last.health);
    return 1;
  }
}

/** `value` as an integer 1..max, else PROVD_ERR_CONFIG_INVALID naming the option. */
function integerOption(name: string, value: string, max: number): number {
  const number = Number(value);
  if (!/^\d+$/.test(value) || number < 1 || number > max)
    throw new ProvdError('PROVD_ERR_CONFIG_INVALID', `${name} must be an integer 1..${max}, got "${value}"`);
  return number;
}

/** What the daemon's log says, or where to look. */
function endedHow(logFile: string | undefined): string {
  const lines = logFile === undefined ? [] : logExcerpt(logFile);
  if (logFile === undefined || lines.length === 0) return '; what it printed says why\n';
  return `; the end of its log (${visible(logFile)}):\n${lines.map((line) => `  ${line}\n`).join('')}`;
}

/** The last answer, in words. */
function lastState({ last }: WaitOutcome): string {
  switch (last.kind) {
    case 'not_ready':
      return `it answers ${last.health.status}, not ready`;
    case 'token_refused':
      return `a daemon there is ready but refuses the token: ${last.reason}`;
    case 'unreachable':
      return last.reason;
    case 'ready':
      return 'ready';
  }
}
