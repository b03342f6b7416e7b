/**
 * Where the daemon is in a hook spool file it reads (`<taken>.progress`, beside the renamed
 * `<uid>.ndjson.<pid>.reading`): one fixed-width record, rewritten in place before a line is stored
 * (`doubt OFFSET`: the line at OFFSET is being stored) and after (`done  OFFSET`: every line before
 * OFFSET is stored). A kill ends a write(2) whole or not at all, so the next start reads a record
 * that is one or the other: it resumes after the last line stored, and the one line in doubt is
 * neither stored again nor lost silently (the reader counts it).
 *
 * The spool dir lets every user add a file (mode 1733), so a record is trusted only from a regular
 * file of the daemon's own uid, closed to others, with one link, opened without following a link;
 * anything else is refused (logged), and the file is read from its start as before the record.
 */
import { closeSync, constants, fstatSync, openSync, readSync, rmSync, writeSync } from 'node:fs';
import { log } from '../shared/log.js';

/** `doubt ` or `done  `, 20 digits, a newline. */
const recordBytes = 27;
const recordPattern = /^(doubt|done ) (\d{20})\n$/;

export class SpoolProgress {
  private constructor(
    private fd: number | null,
    /** The offset to read from: every line before it is stored. */
    readonly resumeAt: number,
    /** The offset of a line whose store a kill may have cut, if any. */
    readonly inDoubt: number | null,
  ) {}

  /** The record of `taken`'s reading: made empty when none, read when an earlier reading left one. */
  static open(taken: string): SpoolProgress {
    const path = progressPath(taken);
    let fd: number;
    try {
      fd = openSync(
        path,
        constants.O_RDWR | constants.O_CREAT | constants.O_NOFOLLOW | constants.O_NONBLOCK,
        0o600,
      );
    } catch (error) {
      log('warn', 'the hook spool reading keeps no place: its progress file could not be opened', {
        path,
        error: String(error),
      });
      return new SpoolProgress(null, 0, null);
    }
    const stat = fstatSync(fd);
    if (!stat.isFile() || stat.uid !== process.getuid!() || (stat.mode & 0o077) !== 0 || stat.nlink !== 1) {
      closeSync(fd);
      log('warn', 'a hook spool progress file not the daemon’s own was refused; reading from the start', {
        path,
        owner: stat.uid,
        mode: (stat.mode & 0o7777).toString(8),
      });
      return new SpoolProgress(null, 0, null);
    }
    const bytes = Buffer.alloc(recordBytes + 1);
    const read = readSync(fd, bytes, 0, bytes.length, 0);
    if (read === 0) return new SpoolProgress(fd, 0, null);
    const [, state, offset] = recordPattern.exec(bytes.subarray(0, read).toString('latin1')) ?? [];
    if (offset === undefined) {
      log('warn', 'a hook spool progress record is malformed; reading from the start', { path });
      return new SpoolProgress(fd, 0, null);
    }
    const at = Number(offset);
    return state === 'doubt' ? new SpoolProgress(fd, at, at) : new SpoolProgress(fd, at, null);
  }

  /** Removes `taken`'s record once the file is read whole. */
  static remove(taken: string): void {
    rmSync(progressPath(taken), { force: true });
  }

  /** Before the line at `offset` is stored. */
  storing(offset: number): void {
    this.write('doubt', offset);
  }

  /** After a line is stored: the next starts at `offset`. */
  stored(offset: number): void {
    this.write('done ', offset);
  }

  close(): void {
    if (this.fd !== null) closeSync(this.fd);
    this.fd = null;
  }

  private write(state: 'doubt' | 'done ', offset: number): void {
    if (this.fd === null) return;
    writeSync(this.fd, `${state} ${String(offset).padStart(20, '0')}\n`, 0, 'latin1');
  }
}

function progressPath(taken: string): string {
  return `${taken}.progress`;
}
