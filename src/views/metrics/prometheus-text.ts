/**
 * The Prometheus text exposition format 0.0.4: one `# HELP` and `# TYPE` line per family, then
 * its samples. Label values and help text are escaped as the format says, so a label taken from
 * stored data (a source, a rule id) cannot break a line or forge a sample.
 */

/** The media type of the format, as Prometheus asks for it. */
export const prometheusContentType = 'text/plain; version=0.0.4; charset=utf-8';

/** Label name to value. */
export type Labels = Readonly<Record<string, string>>;

/** Builds one exposition: families in the order added, each name once. */
export class PrometheusText {
  private readonly lines: string[] = [];
  private readonly names = new Set<string>();

  /** Adds a family; a counter's name must end in `_total`, as the OpenMetrics convention has it. */
  family(
    name: string,
    type: 'counter' | 'gauge',
    help: string,
    samples: readonly (readonly [Labels, number])[],
  ): this {
    if (!/^[a-zA-Z_:][a-zA-Z0-9_:]*$/.test(name) || this.names.has(name))
      throw new Error(`failed to add metric ${name}: not a metric name, or added twice`);
    if (type === 'counter' && !name.endsWith('_total'))
      throw new Error(`failed to add metric ${name}: a counter's name ends in _total`);
    this.names.add(name);
    this.lines.push(`# HELP ${name} ${help.replace(/\\/g, '\\\\').replace(/\n/g, '\\n')}`);
    this.lines.push(`# TYPE ${name} ${type}`);
    for (const [labels, value] of samples) this.lines.push(`${name}${labelText(labels)} ${valueText(value)}`);
    return this;
  }

  /** The exposition: every line ends in a newline, the last one too. */
  text(): string {
    return this.lines.map((line) => `${line}\n`).join('');
  }
}

function labelText(labels: Labels): string {
  const pairs = Object.entries(labels).map(([name, value]) => `${name}="${escapeLabel(value)}"`);
  return pairs.length === 0 ? '' : `{${pairs.join(',')}}`;
}

function escapeLabel(value: string): string {
  return value.replace(/\\/g, '\\\\').replace(/"/g, '\\"').replace(/\n/g, '\\n');
}

function valueText(value: number): string {
  if (Number.isNaN(value)) return 'NaN';
  if (!Number.isFinite(value)) return value > 0 ? '+Inf' : '-Inf';
  return String(value);
}
