/**
 * docs/daemon-options.md, the table of `provd daemon`'s options, written from daemon-options.ts by
 * `npm run generate` and compared by the build (generated-files-write.ts), so the docs list every
 * option with its config key, environment variable and default as the daemon takes them.
 */
import { configKeysOf, daemonOptionHelp, daemonOptions, type DaemonOption } from './daemon-options.js';

/** Where the table is, from the repository root. */
export const daemonOptionsDocPath = 'docs/daemon-options.md';

const declared: readonly DaemonOption[] = daemonOptions;

/** The page's text. */
export function daemonOptionsDoc(): string {
  const rows = declared.map((option) =>
    [
      code(usageOf(option)),
      configKeysOf(option).map(code).join(', '),
      option.env === undefined ? '' : code(option.kind === 'boolean' ? `${option.env}=1` : option.env),
      cell(option.default ?? ''),
      cell(daemonOptionHelp(option)) +
        (option.page === undefined ? '' : ` ([${option.page}](${option.page}))`),
    ].join(' | '),
  );
  return [
    '# The options of `provd daemon`',
    '',
    '<!-- Generated from src/daemon/daemon-options.ts by `npm run generate`: edit that file, not this one. -->',
    '',
    'Each option can also come from a config file (`provd daemon --config FILE`, see',
    '[operations.md](operations.md#a-config-file-provd-daemon---config-file)) under its config key, and',
    'some from an environment variable. An option on the command line wins over the config file, the',
    'file over the environment, and the environment over the default.',
    '',
    '| Option | Config key | Environment | Default | What it does |',
    '| --- | --- | --- | --- | --- |',
    ...rows.map((row) => `| ${row} |`),
    '',
  ].join('\n');
}

/** The option as the usage shows it: `--listen HOST:PORT`, `--[no-]sensor`. */
function usageOf({ flag, valueName, negatable }: DaemonOption): string {
  const name = negatable ? `--[no-]${flag.slice(2)}` : flag;
  return valueName === undefined ? name : `${name} ${valueName}`;
}

/** Text in a table cell: a `|` would end the cell, a `<` open an HTML tag. */
function cell(text: string): string {
  return text.replaceAll('|', '\\|').replaceAll('<', '&lt;');
}

function code(text: string): string {
  return `\`${text.replaceAll('|', '\\|')}\``;
}
