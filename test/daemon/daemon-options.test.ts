import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Cli } from 'clipanion';
import { DaemonCommand } from '../../src/cli/commands/daemon.js';
import { resolveConfig } from '../../src/daemon/config.js';
import { configKeys } from '../../src/daemon/config-file.js';
import { daemonOptionsDoc, daemonOptionsDocPath } from '../../src/daemon/daemon-options-doc.js';
import {
  daemonOptionHelp,
  daemonOptions,
  givenValue,
  type DaemonFlags,
  type DaemonOption,
} from '../../src/daemon/daemon-options.js';
import { packageRoot } from '../../src/shared/package-root.js';

const declared: readonly DaemonOption[] = daemonOptions;
const text = (page: string): string => readFileSync(join(packageRoot, page), 'utf8');

/** A default as the flag would give it: `64 MiB` as bytes, `1,000,000` without commas, a switch's on or off. */
function asFlag(option: DaemonOption): string | boolean {
  const shown = option.default!;
  if (option.kind === 'boolean') return shown === 'on';
  const units = /^(\d+) ([MG])iB$/.exec(shown);
  if (units !== null) return String(Number(units[1]) * 1024 ** (units[2] === 'M' ? 2 : 3));
  return shown.replaceAll(',', '');
}

/** Defaults the docs state in words: the data dir's, the signing key's, the machine's name, ... */
const statedInWords = new Set([
  '--data-dir',
  '--signing-key',
  '--policy',
  '--resolv-conf',
  '--record-user',
  '--host-name',
  '--otlp-endpoint',
]);

describe('the options of provd daemon, declared once (daemon-options.ts)', function () {
  it('gives the command exactly the declared options, each with its declared help, and --config', function () {
    const cli = new Cli({ binaryName: 'provd' });
    cli.register(DaemonCommand);
    const options = cli.definitions()[0]!.options;
    const flags = options.map(({ definition }) => /^--[a-z-]+/.exec(definition)![0]);
    assert.deepEqual(
      [...flags].sort(),
      ['--config', ...declared.map(({ flag }) => flag)].sort(),
      'the command lists each declared option once, and no other but --config',
    );
    for (const option of declared) {
      const shown = options.find(({ definition }) => definition.startsWith(`${option.flag}`))!;
      assert.equal(shown.description, daemonOptionHelp(option), option.flag);
      assert.equal(/ #0$/.test(shown.definition), option.kind !== 'boolean', `${option.flag} takes a value`);
    }
  });

  it('names in each help line the environment variable and the default it declares, placeholders filled', function () {
    for (const option of declared) {
      const help = daemonOptionHelp(option);
      assert.doesNotMatch(help, /\{(env|default)\}/, option.flag);
      if (option.env !== undefined) assert.ok(help.includes(option.env), `${option.flag}: ${option.env}`);
      if (option.default !== undefined) assert.ok(help.includes(option.default), `${option.flag}: default`);
      assert.ok(!option.help.includes('{env}') || option.env !== undefined, `${option.flag}: {env} of none`);
      assert.equal(option.kind === 'boolean', option.valueName === undefined, `${option.flag}: value name`);
    }
  });

  it('states as each default what the daemon takes when the option is not given', function () {
    const unset = resolveConfig({}, {});
    for (const option of declared) {
      if (option.default === undefined || statedInWords.has(option.flag)) continue;
      const flags: DaemonFlags = { [option.property]: asFlag(option) };
      assert.deepEqual(resolveConfig(flags, {}), unset, `${option.flag} ${option.default}`);
    }
  });

  it('takes each option from the flag, else from its environment variable (a switch only at 1)', function () {
    for (const option of declared) {
      const property = option.property as keyof DaemonFlags;
      const value = option.kind === 'boolean' ? true : 'x';
      assert.equal(givenValue({ [property]: value }, { [option.env ?? 'UNSET']: 'y' }, property), value);
      if (option.env === undefined) continue;
      assert.equal(givenValue({}, { [option.env]: '1' }, property), option.kind === 'boolean' ? true : '1');
      assert.equal(
        givenValue({}, { [option.env]: '0' }, property),
        option.kind === 'boolean' ? undefined : '0',
      );
      assert.equal(givenValue({}, {}, property), undefined);
    }
  });

  it('takes a config file key for each option: its flag without dashes, and no- that for a switch on by default', function () {
    const keys = declared.flatMap(({ flag, negatable }) =>
      negatable ? [flag.slice(2), `no-${flag.slice(2)}`] : [flag.slice(2)],
    );
    assert.deepEqual(Object.keys(configKeys), keys);
  });

  it('lists every option in the docs: the generated table as generated, and the synopsis of docs/cli.md', function () {
    assert.equal(text(daemonOptionsDocPath), daemonOptionsDoc(), 'run npm run generate');
    const rows = text(daemonOptionsDocPath).split('\n');
    const synopsis = /^provd daemon [\s\S]*?^provd health/m.exec(text('docs/cli.md'))![0];
    for (const option of declared) {
      const name = option.flag.slice(2);
      const usage = option.negatable ? `--[no-]${name}` : option.flag;
      const row = rows.find((line) => line.startsWith(`| \`${usage} `) || line.startsWith(`| \`${usage}\``));
      assert.ok(row !== undefined, `${option.flag}: a row`);
      assert.ok(row.includes(` | \`${name}\``), `${option.flag}: its config key`);
      if (option.default !== undefined)
        assert.ok(row.includes(option.default.replaceAll('|', '\\|')), `${option.flag}: its default`);
      assert.match(
        synopsis,
        new RegExp(`(?<=[[ ])--(no-)?${name}(?=[ \\]|])`),
        `docs/cli.md: ${option.flag}`,
      );
    }
    assert.match(text('docs/operations.md'), /\]\(daemon-options\.md\)/);
  });
});
