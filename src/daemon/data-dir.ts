/**
 * The data dir holds the signing key, the database and the spool: no other user may list or read it
 * (search alone, 0711, is kept: agents of other users reach the hook socket through it). One
 * that exists keeps the mode it was made with, so a dir others may enter is closed (0700) when it is
 * provd's (empty, or holding its database); one holding anything else is refused, since closing a
 * dir the user shares (`--data-dir /var/lib`) would break what else lives there.
 */
import { chmodSync, constants, lstatSync, mkdirSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { ProvdError } from '../shared/errors.js';
import { log } from '../shared/log.js';
import { databaseFileName } from './config.js';

/** provd's own files in the data dir: made 0600 by the daemon's umask, closed to that when an older build left them open. */
const ownFiles = [databaseFileName, databaseFileName + '.wal', 'signing-key.pem'];

/**
 * Makes the data dir (0700) or closes an existing one of provd's, and its files (0600); throws
 * PROVD_ERR_CONFIG_INVALID on a shared one.
 */
export function secureDataDir(dir: string): void {
  closeDir(dir);
  for (const name of ownFiles) closeFile(join(dir, name));
}

function closeDir(dir: string): void {
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  const mode = statSync(dir).mode & 0o777;
  // search alone (0711) lets other users reach only what is named and open to them: the hook
  // socket, hooks.json and the hook spool dir (docs/agents.md), never a listing or another file
  if ((mode & 0o066) === 0) return;
  const entries = readdirSync(dir);
  if (entries.length > 0 && !entries.includes(databaseFileName)) {
    throw new ProvdError(
      'PROVD_ERR_CONFIG_INVALID',
      `the data dir ${dir} may be entered by other users (mode ${octal(mode)}) and holds files that are not provd's: ` +
        'chmod 700 it, or give --data-dir a directory of its own',
    );
  }
  closeTo(dir, mode, 0o700, {
    what: `the data dir ${dir} may be entered by other users`,
    fix: 'chmod 700 it as its owner, or give --data-dir a directory of your own',
  });
}

/** A file of provd's others may read or write becomes 0600 (a file that is not there is left so). */
function closeFile(file: string): void {
  let mode: number;
  try {
    mode = lstatSync(file).mode;
  } catch {
    return;
  }
  // a link or anything but a regular file is not provd's to change: the store refuses it when it opens
  if ((mode & constants.S_IFMT) !== constants.S_IFREG || (mode & 0o077) === 0) return;
  closeTo(file, mode & 0o777, 0o600, {
    what: `${file} may be read by other users`,
    fix: 'chmod 600 it as its owner',
  });
}

/** Changes `path` from `mode` to `closed`, logged; PROVD_ERR_CONFIG_INVALID naming the fix when it cannot. */
function closeTo(path: string, mode: number, closed: number, say: { what: string; fix: string }): void {
  try {
    chmodSync(path, closed);
  } catch (error) {
    const why = (error as NodeJS.ErrnoException).code ?? String(error);
    throw new ProvdError(
      'PROVD_ERR_CONFIG_INVALID',
      `${say.what} (mode ${octal(mode)}) and cannot be closed (${why}): ${say.fix}`,
    );
  }
  log('warn', 'closed to other users', { path, mode_was: octal(mode), mode: octal(closed) });
}

function octal(mode: number): string {
  return mode.toString(8).padStart(4, '0');
}
