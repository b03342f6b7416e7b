/**
 * A strict reader of the Prometheus text format 0.0.4, for tests: every sample belongs to a family
 * announced by `# HELP` and `# TYPE` before it, label values are unescaped, and any other line
 * fails. Written here, apart from the daemon's writer, so the test checks the writer's format.
 */

export interface Sample {
  labels: Record<string, string>;
  value: number;
}

export interface Family {
  type: string;
  help: string;
  samples: Sample[];
}

/** The families of `text`, by name; throws naming the line for anything out of format. */
export function parseExposition(text: string): Map<string, Family> {
  if (!text.endsWith('\n')) throw new Error('the exposition does not end in a newline');
  const families = new Map<string, Family>();
  const lines = text.slice(0, -1).split('\n');
  for (const [index, line] of lines.entries()) {
    const fail = (why: string): never => {
      throw new Error(`line ${index + 1}: ${why}: ${JSON.stringify(line)}`);
    };
    const help = /^# HELP ([a-zA-Z_:][a-zA-Z0-9_:]*) (.*)$/.exec(line);
    const type = /^# TYPE ([a-zA-Z_:][a-zA-Z0-9_:]*) (counter|gauge|histogram|summary|untyped)$/.exec(line);
    if (help !== null) {
      if (families.has(help[1]!)) fail('a second HELP for the family');
      families.set(help[1]!, { type: '', help: help[2]!, samples: [] });
    } else if (type !== null) {
      const family = families.get(type[1]!) ?? fail('TYPE before HELP');
      if (family.type !== '' || family.samples.length > 0) fail('TYPE after samples, or twice');
      family.type = type[2]!;
    } else {
      const sample = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})? (\S+)$/.exec(line) ?? fail('not a sample');
      const family = families.get(sample[1]!) ?? fail('a sample of no announced family');
      if (family.type === '') fail('a sample before its TYPE');
      const value = /^(NaN|[+-]Inf)$/.test(sample[3]!)
        ? Number(sample[3]!.replace('Inf', 'Infinity'))
        : Number(sample[3]);
      if (Number.isNaN(value) && sample[3] !== 'NaN') fail('not a number');
      family.samples.push({ labels: parseLabels(sample[2] ?? '', fail), value });
    }
  }
  return families;
}

function parseLabels(text: string, fail: (why: string) => never): Record<string, string> {
  const labels: Record<string, string> = {};
  let rest = text;
  while (rest !== '') {
    const name = /^([a-zA-Z_][a-zA-Z0-9_]*)="/.exec(rest) ?? fail('a label without name="');
    let value = '';
    let at = name[0].length;
    for (; at < rest.length && rest[at] !== '"'; at++) {
      if (rest[at] !== '\\') value += rest[at];
      else {
        const escaped = rest[++at];
        if (escaped === 'n') value += '\n';
        else if (escaped === '\\' || escaped === '"') value += escaped;
        else fail('an unknown escape in a label value');
      }
    }
    if (at >= rest.length) fail('an unterminated label value');
    if (Object.hasOwn(labels, name[1]!)) fail('a label given twice');
    labels[name[1]!] = value;
    rest = rest.slice(at + 1);
    if (rest.startsWith(',')) rest = rest.slice(1);
    else if (rest !== '') fail('labels not separated by a comma');
  }
  return labels;
}

/** The value of the sample of `name` with exactly `labels`, or undefined. */
export function sampleValue(
  families: Map<string, Family>,
  name: string,
  labels: Record<string, string> = {},
): number | undefined {
  const wanted = JSON.stringify(Object.entries(labels).sort());
  return families
    .get(name)
    ?.samples.find((sample) => JSON.stringify(Object.entries(sample.labels).sort()) === wanted)?.value;
}
