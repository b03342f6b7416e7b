/**
 * `provd hooks install | uninstall | print` without the command line: what each does to an
 * agent's settings files, returned as an outcome the CLI prints. Every file is read and checked
 * before any is written, so a refused file leaves all of them as they were.
 */
import { existsSync, realpathSync, rmSync, statSync } from 'node:fs';
import { isDeepStrictEqual } from 'node:util';
import { hookClientPath } from '../hook-command.js';
import { enableCodexHooks } from './codex-features.js';
import { editHooks, readSettingsObject } from './hooks-file-edit.js';
import { hookTarget, type HookAgent, type HookScope, type HookTarget } from './hook-targets.js';
import { hookCommandLine, provdGroup } from './provd-hook-entries.js';
import { readingFile } from './json-text.js';
import { backupPathOf, readSettingsText, writeAtomically, writeSettingsText } from './settings-file.js';

export interface HooksRequest {
  agent: HookAgent;
  scope: HookScope;
  /** The daemon's hook socket the client is pointed at; null: the client's own default. */
  socket: string | null;
  env: NodeJS.ProcessEnv;
  cwd: string;
  /** Compute and report, write nothing. */
  dryRun: boolean;
}

/** One settings file: where, what it holds after, and what happened to it. */
export interface FileOutcome {
  path: string;
  /** Whether the file was there before. */
  existed: boolean;
  /** Its text after (what print shows). */
  text: string;
  changed: boolean;
  /** The events whose hooks changed (hooks files). */
  events: string[];
  /** The backup of the file as it was before provd first changed it, when there is one. */
  backup: string | null;
  /** Uninstall: the backup was put back (the file held nothing else new since install). */
  restored: boolean;
}

export interface HooksOutcome {
  target: HookTarget;
  command: string;
  files: FileOutcome[];
  /** provd's hook entries in the hooks file before and after. */
  provdBefore: number;
  provdAfter: number;
  warnings: string[];
}

/** Puts provd's hooks into the agent's settings (or says what it would put, with dryRun). */
export function installHooks(request: HooksRequest): HooksOutcome {
  const target = hookTarget(request.agent, request.scope, request.env, request.cwd);
  const command = hookCommandLine(request.agent, request.socket);
  const group = provdGroup(target, command);
  const before = readSettingsText(target.settingsFile);
  const groups = Object.fromEntries(target.events.map((event) => [event, group]));
  const edit = readingFile(target.settingsFile, () => editHooks(before, target.comments, groups));
  const files: FileOutcome[] = [fileOutcome(target.settingsFile, edit.text, before, edit.events)];
  if (target.featuresFile !== null) {
    const config = readSettingsText(target.featuresFile);
    const features = readingFile(target.featuresFile, () => enableCodexHooks(config));
    files.push(
      fileOutcome(target.featuresFile, features.text, config, features.changed ? ['features.hooks'] : []),
    );
  }
  if (!request.dryRun) for (const file of files) writeChanged(file, readSettingsText(file.path));
  const warnings = existsSync(hookClientPath())
    ? []
    : [`the hook client is not built (${hookClientPath()}): build it with npm run setup in provd's clone`];
  const off = hooksTurnedOff(target, readSettingsObject(edit.text, target.comments).value);
  if (off !== null) warnings.push(off);
  return { target, command, files, provdBefore: edit.provdBefore, provdAfter: edit.provdAfter, warnings };
}

/**
 * Takes exactly provd's hooks out of the agent's settings. When the file then holds what its
 * backup holds (nothing changed since install but provd's hooks), the backup's bytes are put back
 * and the backup removed; otherwise the backup stays, and every change the user made is kept.
 */
export function uninstallHooks(request: HooksRequest): HooksOutcome {
  const target = hookTarget(request.agent, request.scope, request.env, request.cwd);
  const before = readSettingsText(target.settingsFile);
  const edit = readingFile(target.settingsFile, () => editHooks(before, target.comments, {}));
  const outcome = fileOutcome(target.settingsFile, edit.text, before, edit.events);
  const backupText = outcome.backup === null ? null : readSettingsText(outcome.backup);
  if (before !== null && backupText !== null && sameSettings(edit.text, backupText, target.comments)) {
    outcome.text = backupText;
    outcome.changed = backupText !== before;
    outcome.restored = true;
  }
  if (!request.dryRun && outcome.changed) {
    if (outcome.restored) {
      const file = realpathSync(target.settingsFile);
      writeAtomically(file, outcome.text, statSync(file).mode & 0o7777);
    } else writeSettingsText(target.settingsFile, outcome.text, null);
  }
  if (!request.dryRun && outcome.restored) rmSync(outcome.backup!);
  const files = [outcome];
  if (target.featuresFile !== null) {
    const config = readSettingsText(target.featuresFile);
    files.push(fileOutcome(target.featuresFile, config ?? '', config, []));
  }
  return {
    target,
    command: hookCommandLine(request.agent, request.socket),
    files,
    provdBefore: edit.provdBefore,
    provdAfter: edit.provdAfter,
    warnings: [],
  };
}

/** What in the settings keeps the agent from running any hook (left as the user set it), or null. */
function hooksTurnedOff(target: HookTarget, settings: Record<string, unknown>): string | null {
  if (target.agent === 'claude' && settings['disableAllHooks'] === true)
    return `${target.settingsFile} sets "disableAllHooks": true: Claude Code runs no hook until it is removed`;
  const config = settings['hooksConfig'];
  if (
    target.agent === 'gemini' &&
    typeof config === 'object' &&
    config !== null &&
    'enabled' in config &&
    config.enabled === false
  )
    return `${target.settingsFile} sets "hooksConfig": {"enabled": false}: Gemini CLI runs no hook until it is true`;
  return null;
}

function fileOutcome(path: string, text: string, before: string | null, events: string[]): FileOutcome {
  const backup = backupPathOf(path);
  return {
    path,
    existed: before !== null,
    text,
    changed: text !== (before ?? ''),
    events,
    backup: existsSync(backup) ? backup : null,
    restored: false,
  };
}

function writeChanged(file: FileOutcome, before: string | null): void {
  if (!file.changed) return;
  const made = writeSettingsText(file.path, file.text, before);
  if (made !== null) file.backup = made;
}

/** Whether two settings texts hold the same settings (formatting aside). */
function sameSettings(a: string, b: string, comments: boolean): boolean {
  try {
    return isDeepStrictEqual(readSettingsObject(a, comments).value, readSettingsObject(b, comments).value);
  } catch {
    return false; // a backup that no longer parses is never put back
  }
}
