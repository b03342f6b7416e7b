#!/usr/bin/env node
// provd's command line: `provd daemon` runs the daemon; every other command talks to it over HTTP.
import { Builtins, Cli } from 'clipanion';
import { provdVersion } from '../shared/package-root.js';
import { DaemonCommand } from './commands/daemon.js';
import { HealthCommand } from './commands/health.js';
import { IngestCommand } from './commands/ingest.js';

const cli = new Cli({ binaryLabel: 'provd', binaryName: 'provd', binaryVersion: provdVersion });
cli.register(Builtins.HelpCommand);
cli.register(Builtins.VersionCommand);
cli.register(DaemonCommand);
cli.register(HealthCommand);
cli.register(IngestCommand);

// A usage error (unknown option, missing or extra argument) exits 2, as Unix tools do; clipanion says 1.
let command;
try {
  command = cli.process(process.argv.slice(2));
} catch (error) {
  process.stderr.write(cli.error(error instanceof Error ? error : new Error(String(error))));
  process.exitCode = 2;
}
if (command !== undefined) process.exitCode = await cli.run(command);
