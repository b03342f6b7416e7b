/** `provd ui`: checks that the daemon takes the configured token, then prints the web view's URL. */
import { Command, Option } from 'clipanion';
import { isLoopbackName } from '../../daemon/browser-guard.js';
import { configuredToken, fetchDaemon } from '../daemon-client.js';
import { DaemonClientCommand } from '../daemon-client-command.js';
import { daemonErrorOf } from '../daemon-error.js';

export class UiCommand extends DaemonClientCommand {
  static override paths = [['ui']];

  static override usage = Command.Usage({
    description: "Print the URL of the daemon's web view",
    details: `
      Checks that the daemon answers and takes the token of \`PROVD_AUTH_TOKEN\` (or
      \`PROVD_AUTH_TOKEN_FILE\`), then prints the URL of its web view (\`GET /ui\`): the list of
      runs, or with \`--run\` that run's page (verify verdict, risks, timeline, causality tree).
      The token travels in the URL's fragment (\`#token=...\`), which a browser never sends to a
      server; the page moves it into the tab's sessionStorage and takes it out of the address bar.
      The printed URL holds the token: treat it as the token.

      The view works only at a loopback address (127.0.0.1, localhost, [::1]): the daemon refuses
      a page's requests addressed to any other name.

      Exit code 0 when the URL was printed, 1 when the daemon refused the token or does not know
      the run (its code and message on stderr), 2 when it cannot be reached or for bad usage.
    `,
    examples: [
      ['The list of runs', '$0 ui'],
      ["One run's page", '$0 ui --run r-2026-11-28'],
    ],
  });

  run = Option.String('--run', { description: "open this run's page instead of the list of runs" });

  protected async executeAt(baseUrl: string): Promise<number> {
    const { stdout, stderr } = this.context;
    // the same answers the page's first request gets: the runs, or the run's verify result
    const probe =
      this.run === undefined ? '/v1/runs?limit=1' : `/v1/graph/verify?run=${encodeURIComponent(this.run)}`;
    const answer = await fetchDaemon(baseUrl, probe, stderr);
    if (answer === undefined) return 2;
    if (answer.status !== 200 && !(this.run !== undefined && answer.status === 503)) {
      const error = daemonErrorOf(answer.body);
      stderr.write(`provd: ${error ?? `unexpected answer from the daemon (HTTP ${answer.status})`}\n`);
      return error === undefined ? 2 : 1;
    }
    if (!isLoopbackName(new URL(baseUrl).hostname)) {
      stderr.write(
        `provd: warning: ${baseUrl} is not a loopback address; the daemon serves its web view's ` +
          'requests only at 127.0.0.1, localhost or [::1]\n',
      );
    }
    const fragment = new URLSearchParams();
    const token = configuredToken();
    if (token !== '') fragment.set('token', token);
    if (this.run !== undefined) fragment.set('run', this.run);
    const hash = fragment.size === 0 ? '' : `#${fragment.toString()}`;
    stdout.write(`${baseUrl}/ui${hash}\n`);
    return 0;
  }
}
