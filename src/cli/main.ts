#!/usr/bin/env node
// provd's command line: `provd daemon` runs the daemon; every other command talks to it over HTTP.
import { Builtins, Cli } from 'clipanion';
import { provdVersion } from '../shared/package-root.js';
import { DaemonCommand } from './commands/daemon.js';
import { HealthCommand } from './commands/health.js';

const cli = new Cli({ binaryLabel: 'provd', binaryName: 'provd', binaryVersion: provdVersion });
cli.register(Builtins.HelpCommand);
cli.register(Builtins.VersionCommand);
cli.register(DaemonCommand);
cli.register(HealthCommand);

process.exitCode = await cli.run(process.argv.slice(2));
