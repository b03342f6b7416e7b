// provd's command line: `provd daemon` runs the daemon; every other command talks to it over HTTP.
import { stripVTControlCharacters } from 'node:util';
import { Builtins } from 'clipanion';
import { provdVersion } from '../shared/package-root.js';
import { AiCallCommand } from './commands/ai-call.js';
import { AiMcpCommand } from './commands/ai-mcp.js';
import { AiToolsCommand } from './commands/ai-tools.js';
import { DaemonCommand } from './commands/daemon.js';
import { EventsCommand } from './commands/events.js';
import { ExplainCommand } from './commands/explain.js';
import { ExportCommand } from './commands/export.js';
import { HealthCommand } from './commands/health.js';
import { HooksUsageCommand } from './commands/hooks.js';
import { HooksInstallCommand } from './commands/hooks-install.js';
import { HooksPrintCommand } from './commands/hooks-print.js';
import { HooksUninstallCommand } from './commands/hooks-uninstall.js';
import { IngestCommand } from './commands/ingest.js';
import { PolicyCheckCommand } from './commands/policy-check.js';
import { RecordCommand } from './commands/record.js';
import { WatchCommand } from './commands/watch.js';
import { RisksCommand } from './commands/risks.js';
import { ResponsesCommand } from './commands/responses.js';
import { RunsCommand } from './commands/runs.js';
import { SensorStatusCommand } from './commands/sensor-status.js';
import { SignalsCommand } from './commands/signals.js';
import { SummaryCommand } from './commands/summary.js';
import { TimelineCommand } from './commands/timeline.js';
import { UiCommand } from './commands/ui.js';
import { VerifyBundleCommand } from './commands/verify-bundle.js';
import { VerifyCommand } from './commands/verify.js';
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
cli.register(AiCallCommand);
cli.register(AiMcpCommand);
cli.register(AiToolsCommand);
cli.register(DaemonCommand);
cli.register(EventsCommand);
cli.register(ExplainCommand);
cli.register(ExportCommand);
cli.register(HealthCommand);
cli.register(HooksUsageCommand);
cli.register(HooksInstallCommand);
cli.register(HooksUninstallCommand);
cli.register(HooksPrintCommand);
cli.register(IngestCommand);
cli.register(PolicyCheckCommand);
cli.register(RecordCommand);
cli.register(RisksCommand);
cli.register(ResponsesCommand);
cli.register(RunsCommand);
cli.register(SensorStatusCommand);
cli.register(SignalsCommand);
cli.register(SummaryCommand);
cli.register(TimelineCommand);
cli.register(UiCommand);
cli.register(VerifyCommand);
cli.register(VerifyBundleCommand);
cli.register(WatchCommand);

// A usage error (unknown option, missing or extra argument) exits 2, as Unix tools do; clipanion says 1.
let command;
try {
  command = cli.process(bindOptionValues(process.argv.slice(2)));
} catch (error) {
  const text = cli.error(error instanceof Error ? error : new Error(String(error)));
  process.stderr.write(usesColors(process.stderr) ? text : stripVTControlCharacters(text));
  process.exitCode = usageExitCode;
}
if (command !== undefined) process.exitCode = await cli.run(command);
