/**
 * Where each command of the CLI is, by the first word of its path, in the order `--help` lists them.
 * A run loads only the modules of its first word (`provd verify ...` loads `verify` and
 * `verify --bundle`, nothing of `daemon` or `ingest`): each command module's imports cost a CLI call
 * about a quarter of a second, and tests make hundreds. `--help`, no command, or a word that is no
 * command's loads them all, so clipanion answers exactly as with every command registered.
 * A test checks each loaded command's path starts with the word it is listed under.
 */
import type { CommandClass } from 'clipanion';

type Load = () => Promise<CommandClass>;

export const commandModules: readonly (readonly [word: string, load: Load])[] = [
  ['ai', async () => (await import('./commands/ai-call.js')).AiCallCommand],
  ['ai', async () => (await import('./commands/ai-mcp.js')).AiMcpCommand],
  ['ai', async () => (await import('./commands/ai-tools.js')).AiToolsCommand],
  ['attest', async () => (await import('./commands/attest.js')).AttestCommand],
  ['daemon', async () => (await import('./commands/daemon.js')).DaemonCommand],
  ['events', async () => (await import('./commands/events.js')).EventsCommand],
  ['explain', async () => (await import('./commands/explain.js')).ExplainCommand],
  ['export', async () => (await import('./commands/export.js')).ExportCommand],
  ['health', async () => (await import('./commands/health.js')).HealthCommand],
  ['hooks', async () => (await import('./commands/hooks.js')).HooksUsageCommand],
  ['hooks', async () => (await import('./commands/hooks-install.js')).HooksInstallCommand],
  ['hooks', async () => (await import('./commands/hooks-uninstall.js')).HooksUninstallCommand],
  ['hooks', async () => (await import('./commands/hooks-print.js')).HooksPrintCommand],
  ['ingest', async () => (await import('./commands/ingest.js')).IngestCommand],
  ['policy', async () => (await import('./commands/policy-check.js')).PolicyCheckCommand],
  ['record', async () => (await import('./commands/record.js')).RecordCommand],
  ['risks', async () => (await import('./commands/risks.js')).RisksCommand],
  ['responses', async () => (await import('./commands/responses.js')).ResponsesCommand],
  ['runs', async () => (await import('./commands/runs.js')).RunsCommand],
  ['sensor', async () => (await import('./commands/sensor-status.js')).SensorStatusCommand],
  ['signals', async () => (await import('./commands/signals.js')).SignalsCommand],
  ['summary', async () => (await import('./commands/summary.js')).SummaryCommand],
  ['timeline', async () => (await import('./commands/timeline.js')).TimelineCommand],
  ['ui', async () => (await import('./commands/ui.js')).UiCommand],
  ['verify', async () => (await import('./commands/verify.js')).VerifyCommand],
  ['verify', async () => (await import('./commands/verify-bundle.js')).VerifyBundleCommand],
  ['verify', async () => (await import('./commands/verify-attestation.js')).VerifyAttestationCommand],
  ['watch', async () => (await import('./commands/watch.js')).WatchCommand],
];

/** `provd --version` and `-v` alone need no command. */
const versionOnly = (args: readonly string[]) =>
  args.length === 1 && (args[0] === '--version' || args[0] === '-v');

/**
 * The command classes a run with `args` needs, in registration order: those of its first word
 * when it is a command's, none for `--version`, else all of them.
 */
export async function commandsFor(args: readonly string[]): Promise<CommandClass[]> {
  if (versionOnly(args)) return [];
  const mine = commandModules.filter(([word]) => word === args[0]);
  const wanted = mine.length > 0 ? mine : commandModules;
  return Promise.all(wanted.map(([, load]) => load()));
}
