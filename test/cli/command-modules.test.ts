import assert from 'node:assert/strict';
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { Command, type CommandClass } from 'clipanion';
import { commandModules, commandsFor } from '../../src/cli/command-modules.js';
import { packageRoot } from '../../src/shared/package-root.js';

/** The first word of each path a command class answers to. */
function firstWords(command: CommandClass): string[] {
  return (command.paths ?? []).map((path) => path[0] ?? '');
}

describe('the CLI loads only the commands a run names', function () {
  it('lists each command under the first word of its path, so `provd WORD` loads every command of WORD', async function () {
    for (const [word, load] of commandModules) {
      const command = await load();
      assert.deepEqual([...new Set(firstWords(command))], [word], command.name);
    }
  });

  it('lists every command module of src/cli/commands, each class once', async function () {
    const listed = await Promise.all(commandModules.map(([, load]) => load()));
    assert.equal(new Set(listed).size, listed.length);
    const dir = join(packageRoot, 'dist', 'src', 'cli', 'commands');
    for (const file of readdirSync(dir).filter((name) => name.endsWith('.js'))) {
      const exported = Object.values((await import(join(dir, file))) as Record<string, unknown>);
      const commands = exported.filter(
        (value) => typeof value === 'function' && value.prototype instanceof Command,
      );
      assert.ok(commands.length > 0, `${file} exports a command`);
      for (const command of commands) assert.ok(listed.includes(command as CommandClass), `${file}: listed`);
    }
  });

  it('loads the commands of the first word, none for --version, and all for help or a word no command has', async function () {
    const all = await commandsFor([]);
    assert.equal(all.length, commandModules.length);
    const names = async (args: string[]) => (await commandsFor(args)).map((command) => command.name);
    assert.deepEqual(await names(['verify', 'run-1']), [
      'VerifyCommand',
      'VerifyBundleCommand',
      'VerifyAttestationCommand',
    ]);
    assert.deepEqual(await names(['hooks', 'install', '--agent', 'claude']), [
      'HooksUsageCommand',
      'HooksInstallCommand',
      'HooksUninstallCommand',
      'HooksPrintCommand',
    ]);
    assert.deepEqual(await names(['--version']), []);
    assert.equal((await commandsFor(['--help'])).length, all.length);
    assert.equal((await commandsFor(['verif', 'run-1'])).length, all.length);
    assert.equal((await commandsFor(['--url', 'http://127.0.0.1:9', 'runs'])).length, all.length);
  });
});
