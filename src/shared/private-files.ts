/**
 * The daemon's files are its own: it runs with umask 077, so DuckDB's database and WAL (which it
 * deletes and makes again at each checkpoint), the spool and the key come out 0600 and 0700. What
 * it starts for others (recorded commands) gets back the umask the daemon was started with.
 */

let inherited: number | undefined;

/** Sets umask 077 for the rest of the process, keeping the one it was started with; call once, on the main thread. */
export function keepFilesPrivate(): void {
  inherited ??= process.umask(0o077);
}

/** The umask the process was started with (022, the common default, before keepFilesPrivate ran). */
export function startingUmask(): number {
  return inherited ?? 0o022;
}
