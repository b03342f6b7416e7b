/** What `provd hooks install | uninstall` print: a few lines for a person, or one JSON body. */
import type { FileOutcome, HooksOutcome } from '../../agents/install/hooks-install.js';
import { backupPathOf } from '../../agents/install/settings-file.js';

export type HooksAction = 'install' | 'uninstall' | 'print';

/** The `--json` body of an outcome (print adds each file's text). */
export function hooksBody(
  action: HooksAction,
  outcome: HooksOutcome,
  dryRun: boolean,
): Record<string, unknown> {
  const { target } = outcome;
  return {
    schema_version: 'provenance.hooks/v1',
    action,
    agent: target.agent,
    scope: target.scope,
    dry_run: dryRun,
    command: outcome.command,
    events: target.events,
    timeout: { value: target.timeout, unit: target.agent === 'gemini' ? 'ms' : 's' },
    files: outcome.files.map((file) => ({
      path: file.path,
      changed: file.changed,
      events: file.events,
      backup: file.backup,
      restored: file.restored,
      ...(action === 'print' ? { text: file.text } : {}),
    })),
    provd_hooks_before: outcome.provdBefore,
    provd_hooks_after: outcome.provdAfter,
    notes: target.notes,
    warnings: outcome.warnings,
  };
}

/** Install's lines: what was written where, the command, the timeout, the backup, the notes. */
export function installText(outcome: HooksOutcome, dryRun: boolean): string {
  const { target } = outcome;
  const [hooksFile, features] = outcome.files;
  const wrote = dryRun ? 'would write' : 'wrote';
  const lines: string[] = [];
  if (!hooksFile!.changed)
    lines.push(`${hooksFile!.path}: provd's hooks are already installed, nothing changed`);
  else {
    const replaced = outcome.provdBefore > 0 ? `, replacing ${outcome.provdBefore} older provd hooks` : '';
    lines.push(`${wrote} ${hooksFile!.path}: provd's hook on ${target.events.join(', ')}${replaced}`);
  }
  lines.push(`  command: ${outcome.command}`);
  const unit = target.agent === 'gemini' ? `${target.timeout} ms` : `${target.timeout} s`;
  lines.push(
    `  timeout: ${unit} per hook (a hung daemon holds a tool call no longer; the hook client stops waiting for the daemon first and answers as hooks.on_daemon_down says)`,
  );
  lines.push(backupLine(hooksFile!));
  if (features !== undefined) {
    lines.push(
      features.changed
        ? `${wrote} ${features.path}: [features] hooks = true (Codex runs hooks only with it)`
        : `${features.path}: [features] hooks is already on`,
    );
    lines.push(backupLine(features));
  }
  for (const note of target.notes) lines.push(`note: ${note}`);
  for (const warning of outcome.warnings) lines.push(`warning: ${warning}`);
  return lines.filter((line) => line !== '').join('\n') + '\n';
}

/** Where the file as it was before provd first changed it is kept, or why there is none. */
function backupLine(file: FileOutcome): string {
  if (file.backup !== null)
    return `  backup: ${file.backup} (the file as it was before provd first changed it)`;
  if (!file.changed) return '';
  if (!file.existed) return `  backup: none (there was no such file)`;
  return `  backup: ${backupPathOf(file.path)} (to be made)`;
}

/** Uninstall's lines: what was removed, whether the backup was put back or kept. */
export function uninstallText(outcome: HooksOutcome, dryRun: boolean): string {
  const [hooksFile, features] = outcome.files;
  const file = hooksFile!;
  const lines: string[] = [];
  const removed = outcome.provdBefore - outcome.provdAfter;
  if (removed === 0 && !file.restored) lines.push(`${file.path}: no provd hooks, nothing changed`);
  else if (removed > 0)
    lines.push(
      `${file.path}: ${dryRun ? 'would remove' : 'removed'} ${removed} provd hooks (${file.events.join(', ')}); every other hook and setting kept`,
    );
  if (file.restored)
    lines.push(
      `${dryRun ? 'would restore' : 'restored'} ${file.path} from ${file.backup} (nothing else in it changed since install)${dryRun ? '' : '; the backup is removed'}`,
    );
  else if (file.backup !== null)
    lines.push(
      `  backup kept: ${file.backup} (the file changed since install, so provd removed only its own hooks)`,
    );
  if (features !== undefined)
    lines.push(`${features.path}: left as it is ([features] hooks is Codex's default)`);
  return lines.join('\n') + '\n';
}
