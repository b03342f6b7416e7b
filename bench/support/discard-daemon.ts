/**
 * Ends a daemon whose scratch store nothing reads afterwards: killed, not stopped. A stop waits for
 * every write still queued behind the answers (the folds and seals behind an ingest, a transaction
 * per hook event), which the benches that call this do not measure: it cost the guard up to a minute.
 */
import type { RunningServer } from '../../test/support/daemon.js';

export function discardDaemon(daemon: RunningServer): Promise<number | null> {
  return daemon.stop('SIGKILL');
}
