/** `provd sensor status`: the running daemon's sensor capability report, from its health. */
import { Command, Option } from 'clipanion';
import type { CaptureReport } from '../../sensor/sensor.js';
import { fetchDaemon } from '../daemon-client.js';
import { DaemonClientCommand } from '../daemon-client-command.js';
import { formatTable } from '../output/text-table.js';

export class SensorStatusCommand extends DaemonClientCommand {
  static override paths = [['sensor', 'status']];

  static override usage = Command.Usage({
    description: "Print the daemon's sensor: whether it runs, each probe, and what it lost",
    details: `
      Reads \`native_capture\` of \`GET /v1/health\`: the sensor's status and why, then a line per
      probe: attached or not (and why not), whether the sensor needs it, and the records the kernel
      dropped (ring buffer full, too many calls in flight), cut, or never ran the probe for (missed),
      then the capture mode (\`agents\` or \`host\`) and what it leaves out on purpose. With \`--json\`, prints the
      report as JSON. Exit code 0 when the sensor runs with every probe, 1 when it is degraded or
      off, 2 when the daemon cannot be reached.
    `,
  });

  json = Option.Boolean('--json', false, { description: 'print the capability report as JSON' });

  protected async executeAt(baseUrl: string): Promise<number> {
    const answer = await fetchDaemon(baseUrl, '/v1/health', this.context.stderr);
    if (answer === undefined) return 2;
    const report = (answer.body as { native_capture?: CaptureReport }).native_capture;
    if (report === undefined || typeof report.status !== 'string') {
      this.context.stderr.write(`provd: the daemon's health has no sensor report (HTTP ${answer.status})\n`);
      return 2;
    }
    this.context.stdout.write(this.json ? JSON.stringify(report, null, 2) + '\n' : formatReport(report));
    return report.status === 'running' ? 0 : 1;
  }
}

function formatReport(report: CaptureReport): string {
  const summary = `sensor: ${report.status}${report.message === null ? '' : ` (${report.message})`}\n`;
  const probes = Object.entries(report.probes);
  if (probes.length === 0) return summary;
  const rows = probes.map(([name, probe]) => [
    name,
    probe.attached ? 'yes' : 'no',
    probe.required ? 'yes' : 'no',
    String(probe.ring_full),
    String(probe.pending_full),
    String(probe.truncated),
    String(probe.missed),
    probe.error?.split('\n')[0] ?? '',
  ]);
  const dropped = Object.entries(report.dropped)
    .map(([where, count]) => `${where} ${count}`)
    .join(', ');
  const header = ['PROBE', 'ATTACHED', 'REQUIRED', 'RING FULL', 'IN FLIGHT', 'TRUNCATED', 'MISSED', 'ERROR'];
  return (
    summary +
    formatTable(header, rows, new Set([3, 4, 5, 6])) +
    `records read: ${report.records}; dropped on the way to the store: ${dropped}\n` +
    formatCapture(report.capture) +
    formatTlsTargets(report.tls.targets)
  );
}

/** The capture mode and what it leaves out on purpose (older daemons report no `leaves_out`). */
function formatCapture(capture: CaptureReport['capture'] | undefined): string {
  if (capture === undefined) return '';
  const leavesOut = capture.leaves_out ?? null;
  return `capture: ${capture.mode}; ${leavesOut === null ? 'every process of the host' : `leaves out ${leavesOut}`}\n`;
}

/** The TLS libraries and binaries found, and whether their plaintext is captured. */
function formatTlsTargets(targets: CaptureReport['tls']['targets']): string {
  if (targets.length === 0) return 'TLS targets: none found yet\n';
  const rows = targets.map((target) => [target.path, target.kind, target.status, target.reason ?? '']);
  return '\n' + formatTable(['TLS TARGET', 'KIND', 'STATUS', 'REASON'], rows);
}
