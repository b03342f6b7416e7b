/** `provd signals RUN`: a run's behaviour, cost, quality and security signals. */
import { Command } from 'clipanion';
import typia from 'typia';
import type { Signals } from '../../security/signals/signals.js';
import { printDaemonBody } from '../output/print-daemon-body.js';
import { formatSignals } from '../render/signals-text.js';
import { RunQueryCommand } from '../run-query-command.js';

export class SignalsCommand extends RunQueryCommand {
  static override paths = [['signals']];

  static override usage = Command.Usage({
    description: "Print a run's behaviour, cost, quality and security signals",
    details: `
      Prints \`GET /v1/signals\` as labelled lines: events by type with their rate and 10-second
      peak, executed and new binaries, fan-out; the LLM cost seen in TLS bodies and asserted in
      tool-call records; tool-call failures, timeouts and retries, process exits; risks by severity,
      decision and rule, and recorded coverage gaps. With \`--json\`, prints the
      \`provenance.signals/v1\` body unchanged, with the basis (tables, method, ids) of every signal.

      Exit code 0 when printed, 1 when the daemon answered an error (an unknown run, a wrong token),
      2 when it cannot be reached or for bad usage.
    `,
    examples: [['What stands out in a run', '$0 signals run-1']],
  });

  protected executeAt(baseUrl: string): Promise<number> {
    const query = new URLSearchParams({ run: this.run });
    return printDaemonBody(baseUrl, `/v1/signals?${query.toString()}`, this.context, {
      json: this.json,
      schema: 'provenance.signals/v1',
      is: typia.createIs<Signals>(),
      render: (signals) => formatSignals(signals, this.style),
    });
  }
}
