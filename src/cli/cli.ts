// provd's command line: `provd daemon` runs the daemon; every other command talks to it over HTTP.
// Only the commands a run names are loaded (command-modules.ts).
import { stripVTControlCharacters } from 'node:util';
import { Builtins } from 'clipanion';
import { provdVersion } from '../shared/package-root.js';
import { commandsFor } from './command-modules.js';
import { usageExitCode } from './daemon-client-command.js';
import { bindOptionValues } from './option-values.js';
import { ProvdCli, usesColors } from './provd-cli.js';

const cli = new ProvdCli({
  binaryLabel: 'provd',
  binaryName: 'provd',
  binaryVersion: provdVersion,
  enableColors: usesColors(process.stdout),
});
cli.register(Builtins.HelpCommand);
cli.register(Builtins.VersionCommand);
const args = process.argv.slice(2);
for (const command of await commandsFor(args)) cli.register(command);

// A usage error (unknown option, missing or extra argument) exits 2, as Unix tools do; clipanion says 1.
let command;
try {
  command = cli.process(bindOptionValues(args));
} catch (error) {
  const text = cli.error(error instanceof Error ? error : new Error(String(error)));
  process.stderr.write(usesColors(process.stderr) ? text : stripVTControlCharacters(text));
  process.exitCode = usageExitCode;
}
if (command !== undefined) process.exitCode = await cli.run(command);
