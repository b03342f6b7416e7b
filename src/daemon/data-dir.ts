/**
 * The data dir holds the signing key, the database and the spool: no other user may enter it. One
 * that exists keeps the mode it was made with, so a dir others may enter is closed (0700) when it is
 * provd's (empty, or holding its database); one holding anything else is refused, since closing a
 * dir the user shares (`--data-dir /var/lib`) would break what else lives there.
 */
import { chmodSync, mkdirSync, readdirSync, statSync } from 'node:fs';
import { ProvdError } from '../shared/errors.js';
import { log } from '../shared/log.js';
import { databaseFileName } from './config.js';

/** Makes the data dir (0700) or closes an existing one of provd's; throws PROVD_ERR_CONFIG_INVALID on a shared one. */
export function secureDataDir(dir: string): void {
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  const mode = statSync(dir).mode & 0o777;
  if ((mode & 0o077) === 0) return;
  const entries = readdirSync(dir);
  if (entries.length > 0 && !entries.includes(databaseFileName)) {
    throw new ProvdError(
      'PROVD_ERR_CONFIG_INVALID',
      `the data dir ${dir} may be entered by other users (mode ${octal(mode)}) and holds files that are not provd's: ` +
        'chmod 700 it, or give --data-dir a directory of its own',
    );
  }
  try {
    chmodSync(dir, 0o700);
  } catch (error) {
    const why = (error as NodeJS.ErrnoException).code ?? String(error);
    throw new ProvdError(
      'PROVD_ERR_CONFIG_INVALID',
      `the data dir ${dir} may be entered by other users (mode ${octal(mode)}) and cannot be closed (${why}): ` +
        'chmod 700 it as its owner, or give --data-dir a directory of your own',
    );
  }
  log('warn', 'data dir closed to other users', { path: dir, mode_was: octal(mode), mode: '0700' });
}

function octal(mode: number): string {
  return mode.toString(8).padStart(4, '0');
}
