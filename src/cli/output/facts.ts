/** Labelled lines, `label  value`, labels padded to line up: for a view of one thing (summary, signals). */
import { truncate, visible, type Style } from './style.js';

/** One fact: its label, and its value as text (a heading has value null). */
export type Fact = readonly [label: string, value: string | null];

/** The facts one a line, labels in bold; on a terminal a value is cut to its width, never a label. */
export function formatFacts(facts: readonly Fact[], style: Style): string {
  const width = Math.max(...facts.filter(([, value]) => value !== null).map(([label]) => label.length));
  const fit = (value: string): string =>
    style.width === undefined
      ? visible(value)
      : truncate(visible(value), Math.max(12, style.width - width - 2));
  return facts
    .map(([label, value]) =>
      value === null
        ? `${style.paint(label, 'bold')}\n`
        : `${style.paint(label.padEnd(width), 'bold')}  ${fit(value)}\n`,
    )
    .join('');
}

/** `execve 3, secret_path 2`, or `-` for none. */
export function countList(entries: readonly (readonly [string, number])[]): string {
  return entries.length === 0 ? '-' : entries.map(([name, count]) => `${name} ${count}`).join(', ');
}
