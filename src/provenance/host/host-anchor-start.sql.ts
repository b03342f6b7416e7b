/**
 * The anchor file at the daemon's start, before any host round: the newest anchored entry is the
 * head the rounds may extend. Entries the chain holds past it are anchored now, marked `recovered`
 * (a stop between a round's COMMIT and its line; or entries written while the daemon was stopped,
 * which is why verify-host names them). A store from before the anchor (no entry says `anchored`)
 * starts its file with a recovered line for its head; a store with no entry gets an empty file, so
 * that a stop between its first entry's COMMIT and its line leaves an empty file, not none. An
 * anchor file that is gone while entries say they are anchored is never started over silently:
 * verify-host reports it (host_anchor_missing).
 */
import type { StoreConnection } from '../../store/store-connection.js';
import { log } from '../../shared/log.js';
import { readRows, sql } from '../../store/sql.js';
import type { SigningKey } from '../signing-key.js';
import { appendAnchor, createAnchor, readAnchor, unreadAnchor } from './host-anchor.js';
import { probeHostChain, readHostHead } from './host-chain.sql.js';
import type { HostEntryRef } from './host-keeper.js';

/** Reconciles the anchor file with the chain; returns the head host rounds may extend. */
export async function startAnchor(
  connection: StoreConnection,
  file: string,
  key: SigningKey,
): Promise<HostEntryRef | null> {
  const keys = await readRows<{ key_id: string; public_key_pem: string }>(
    connection,
    sql`SELECT key_id, public_key_pem FROM signing_keys`,
  );
  let last: HostEntryRef | null = null;
  const read = readAnchor(
    file,
    unreadAnchor,
    new Map(keys.map((row) => [row.key_id, row.public_key_pem])),
    (line) => {
      if (line.kind === 'point' && (last === null || line.point.index > last.index)) last = line.point;
      return true;
    },
  );
  const anchored = last as HostEntryRef | null;
  const head = await readHostHead(connection);
  if (head === null) {
    if (anchored === null) {
      createAnchor(file);
      return null;
    }
    log('error', 'the host chain is empty, but its anchor file records entries: they were removed', {
      file,
      anchored: anchored.index,
    });
    return anchored; // rounds refuse to sign over it: verify-host reports host_chain_truncated
  }
  if (anchored === null) {
    const { hashes } = await probeHostChain(connection, [head.index]);
    if (hashes.get(head.index)?.anchored !== true) {
      // a store from before the anchor: its file starts at the head it has now
      appendAnchor(file, key, [head], true);
      log('info', 'host chain anchor started', { file, index: head.index, hash: head.hash });
      return head;
    }
    if (read === null) {
      log(
        'error',
        'the host chain anchor file is missing, though the host chain says its entries are anchored',
        {
          file,
        },
      );
      return head;
    }
    // the file is there with no line: a stop between the first entry's COMMIT and its line
    return anchorTail(connection, file, key, -1, head);
  }
  if (head.index < anchored.index) {
    log('error', 'the host chain ends before its last anchored entry: entries were removed', {
      file,
      head: head.index,
      anchored: anchored.index,
    });
    return anchored;
  }
  const { hashes } = await probeHostChain(connection, [anchored.index]);
  if (hashes.get(anchored.index)?.hash !== anchored.hash) {
    log('error', 'the host chain entry last anchored was replaced', { file, index: anchored.index });
    return anchored;
  }
  return anchorTail(connection, file, key, anchored.index, head);
}

/**
 * Anchors the entries after `after` through the head, marked recovered (a stop between a round's
 * COMMIT and its line, or entries written while the daemon was stopped); returns the head.
 */
async function anchorTail(
  connection: StoreConnection,
  file: string,
  key: SigningKey,
  after: number,
  head: HostEntryRef,
): Promise<HostEntryRef> {
  if (head.index > after) {
    const tail = await readRows<{ chain_index: bigint; hash: string }>(
      connection,
      sql`SELECT chain_index, hash FROM host_chain WHERE chain_index > ${BigInt(after)} ORDER BY chain_index`,
    );
    appendAnchor(
      file,
      key,
      tail.map((row) => ({ index: Number(row.chain_index), hash: row.hash })),
      true,
    );
    log('warn', 'host chain entries anchored at start, not when signed', {
      file,
      from: after + 1,
      to: head.index,
    });
  }
  return { index: head.index, hash: head.hash };
}
