import { daemonOptions, type DaemonOption } from '../daemon/daemon-options.js';

const daemonFlags: readonly DaemonOption[] = daemonOptions;

/**
 * The value each option of the CLI takes, by option name: shown in the usage (`--listen HOST:PORT`
 * where clipanion would print `--listen #0`), and how `bindOptionValues` knows which tokens are
 * option values; those of `provd daemon` come from daemon-options.ts. A test keeps every
 * registered option in this list.
 */
export const optionValueNames: Readonly<Record<string, string>> = {
  '--config': 'FILE',
  ...Object.fromEntries(
    daemonFlags.flatMap(({ flag, valueName }) => (valueName === undefined ? [] : [[flag, valueName]])),
  ),
  '--url': 'URL',
  '--format': 'FORMAT',
  '--chunk-bytes': 'BYTES',
  '--concurrency': 'COUNT',
  '--limit': 'COUNT',
  '--cursor': 'CURSOR',
  '--since': 'WHEN',
  '--until': 'WHEN',
  '--run': 'RUN',
  '--tool-call': 'ID',
  '--timeout-ms': 'MS',
  '--input': 'JSON|-',
  '--provider': 'PROVIDER',
  '--type': 'TYPE',
  '--event': 'ID',
  '--process': 'KEY',
  '--file': 'PATH',
  '--risk': 'ID',
  '--artifact': 'HASH',
  '--out': 'DIR',
  '--from': 'TIME',
  '--to': 'TIME',
  '--bundle': 'DIR',
  '--key': 'FILE',
  '--attestation': 'FILE',
  '--wait': 'SECONDS',
  '--pid': 'PID',
  '--agent': 'claude|codex|gemini',
  '--socket': 'PATH',
};

/** Switches that are on unless turned off: shown as `--[no-]name`, as git shows them. */
const negatableSwitches: readonly string[] = daemonFlags.flatMap(({ flag, negatable }) =>
  negatable ? [flag] : [],
);

/**
 * Replaces clipanion's `--name #0` placeholders with the option's value name, and names the
 * `--no-` form of a switch that is on by default (clipanion would list only `--sensor`).
 */
export function nameOptionValues(usage: string): string {
  const named = usage.replace(
    /(--[a-z][a-z-]*) #0/g,
    (_all, name: string) => `${name} ${optionValueNames[name] ?? 'VALUE'}`,
  );
  return named.replace(/(?<![\w-])--([a-z][a-z-]*)(?![\w-])/g, (option, name: string) =>
    negatableSwitches.includes(option) ? `--[no-]${name}` : option,
  );
}

/**
 * Joins a value option and a following token that reads as a negative number (`--limit -5`) into
 * `--limit=-5`. clipanion takes any token starting with `-` for an option and would answer "not
 * enough arguments"; joined, the command's own check names the option and the rule it breaks.
 */
export function bindOptionValues(argv: readonly string[]): string[] {
  const bound: string[] = [];
  for (let i = 0; i < argv.length; i++) {
    const token = argv[i]!;
    const next = argv[i + 1];
    if (Object.hasOwn(optionValueNames, token) && next !== undefined && /^-[\d.]/.test(next)) {
      bound.push(`${token}=${next}`);
      i++;
    } else bound.push(token);
  }
  return bound;
}
