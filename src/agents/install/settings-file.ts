/**
 * Reading and writing an agent's settings file the way `provd hooks` must: written atomically
 * (a temporary file in the same directory, then rename) with the file's own mode, through a
 * symlink to the file it names, and backed up once, before provd first changes it.
 */
import {
  chmodSync,
  existsSync,
  mkdirSync,
  readFileSync,
  realpathSync,
  renameSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { dirname } from 'node:path';

/** The backup of `file` as it was before provd first changed it: never overwritten. */
export function backupPathOf(file: string): string {
  return `${file}.provd-backup`;
}

/** The file's text, or null when there is none. */
export function readSettingsText(file: string): string | null {
  return existsSync(file) ? readFileSync(file, 'utf8') : null;
}

/**
 * Writes `text` to `file` atomically, keeping its mode (a new file: 0600, its directory made 0700);
 * a symlinked settings file (dotfiles) is written where it points. Backs the old text up first
 * unless a backup exists or `previous` is null; returns the backup's path when this call made it.
 */
export function writeSettingsText(file: string, text: string, previous: string | null): string | null {
  const target = existsSync(file) ? realpathSync(file) : file;
  mkdirSync(dirname(target), { recursive: true, mode: 0o700 });
  const mode = existsSync(target) ? statSync(target).mode & 0o7777 : 0o600;
  const backup = backupPathOf(file);
  let made: string | null = null;
  if (previous !== null && !existsSync(backup)) {
    writeAtomically(backup, previous, mode);
    made = backup;
  }
  writeAtomically(target, text, mode);
  return made;
}

/** Replaces `file` by `text` through a temporary sibling and a rename, with `mode`. */
export function writeAtomically(file: string, text: string, mode: number): void {
  const temporary = `${file}.provd-${process.pid}.tmp`;
  writeFileSync(temporary, text, { mode, flag: 'wx' });
  chmodSync(temporary, mode); // the umask may have narrowed it
  renameSync(temporary, file);
}
