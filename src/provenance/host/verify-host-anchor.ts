/**
 * verify-host's check of the anchor file (host-anchor.ts) against the host chain, incrementally:
 * the lines added since the last call are read and each anchored entry looked up in the chain;
 * what a line found stays found. Then, every call: the newest anchored entry must still be in the
 * chain (else the newest entries, or all, were removed: host_chain_truncated), and every entry
 * that says it is anchored must have its line, but for the one a round is anchoring right now.
 */
import type { StoreConnection } from '../../store/store-connection.js';
import { VerifyIssues } from '../verify-issues.js';
import {
  readAnchor,
  unreadAnchor,
  type AnchorLine,
  type AnchorPoint,
  type AnchorRead,
} from './host-anchor.js';
import { probeHostChain, readAnchoredAfter } from './host-chain.sql.js';
import type { HostEntryRef } from './host-keeper.js';
import { hostScope } from './host-scope.js';

/** Lines checked per lookup in the chain: memory stays bounded whatever the file's length. */
const linesPerLookup = 2000;

/** What the anchor check keeps between calls. */
export class AnchorCheck {
  private read: AnchorRead = unreadAnchor;
  /** The newest anchored entry read so far. */
  private last: AnchorPoint | null = null;
  /** What the lines read so far showed (they are never read again by a cheap call). */
  private found = new VerifyIssues();
  private recovered: { from: number; to: number; count: number } | null = null;

  /**
   * Checks the lines added since the last call, then the chain's tail (`chainLength` entries in
   * this verify's snapshot; `through`: the newest entry the daemon had anchored before the snapshot
   * began, which the snapshot must hold); reports into `issues`.
   */
  async check(
    connection: StoreConnection,
    file: string,
    keys: ReadonlyMap<string, string>,
    chainLength: number,
    through: number,
    pending: () => readonly HostEntryRef[],
    issues: VerifyIssues,
  ): Promise<void> {
    let waiting: Set<string>;
    for (;;) {
      const batch: AnchorLine[] = [];
      const read = readAnchor(file, this.read, keys, (line) => batch.push(line) < linesPerLookup);
      // at once, as the file was read: an entry is anchored in one or pending in the other, never neither
      waiting = new Set(pending().map((entry) => entry.hash));
      if (read === null) {
        // no file (any more): what its lines showed is gone with it, and every entry that says it
        // is anchored shows it below
        this.restart();
        break;
      }
      if (read.identity !== this.read.identity || read.end < this.read.end) this.restart();
      await this.checkLines(connection, batch);
      this.read = read;
      if (batch.length < linesPerLookup) break;
    }
    issues.merge(this.found);
    const lastIndex = this.last?.index ?? -1;
    // a line written after the snapshot began may name an entry the snapshot does not hold yet
    if (this.last !== null && Math.min(lastIndex, through) >= chainLength)
      issues.error(
        'host_chain_truncated',
        this.last.hash,
        `the anchor file records host chain entry ${lastIndex} (anchored ${this.last.at}); the store's host chain ${chainLength === 0 ? 'is empty' : `ends at entry ${chainLength - 1}`}`,
      );
    const missing = (await readAnchoredAfter(connection, lastIndex)).filter(
      (entry) => !waiting.has(entry.hash),
    );
    if (missing.length > 0)
      issues.error(
        'host_anchor_missing',
        missing[0]!.hash,
        `${missing.length} host chain entries (${missing[0]!.index} to ${missing[missing.length - 1]!.index}) say they are anchored, but the anchor file ${this.last === null ? 'is missing or empty' : `ends at entry ${lastIndex}`}`,
      );
    if (this.recovered !== null)
      issues.warning(
        'host_anchor_recovered',
        hostScope,
        `${this.recovered.count} host chain entries (${this.recovered.from} to ${this.recovered.to}) were anchored when the daemon started, not when they were signed`,
      );
  }

  private restart(): void {
    this.read = unreadAnchor;
    this.last = null;
    this.found = new VerifyIssues();
    this.recovered = null;
  }

  /** Each line against the chain: its entry still there with its hash, no anchored entry skipped. */
  private async checkLines(connection: StoreConnection, lines: readonly AnchorLine[]): Promise<void> {
    const points = lines.flatMap((line) => (line.kind === 'point' ? [line.point] : []));
    const { hashes } = await probeHostChain(
      connection,
      points.map((point) => point.index),
    );
    for (const line of lines) {
      if (line.kind === 'unreadable') {
        this.found.warning('host_anchor_unreadable', `line ${line.line}`, 'not a signed anchor line');
        continue;
      }
      if (line.kind === 'unsigned') {
        this.found.error(
          'host_anchor_invalid',
          `line ${line.line}`,
          `the line anchoring entry ${line.point.index} is not signed by a key of this store`,
        );
        continue;
      }
      const { point } = line;
      const previous = this.last?.index ?? -1;
      if (point.index > previous + 1) await this.checkSkipped(connection, previous, point.index);
      const entry = hashes.get(point.index);
      if (entry !== undefined && entry.hash !== point.hash)
        this.found.error(
          'host_anchor_mismatch',
          entry.hash,
          `host chain entry ${point.index} is not the entry ${point.hash} anchored ${point.at}: it was replaced`,
        );
      if (point.recovered === true)
        this.recovered = {
          from: this.recovered?.from ?? point.index,
          to: point.index,
          count: (this.recovered?.count ?? 0) + 1,
        };
      if (this.last === null || point.index > this.last.index) this.last = point;
    }
  }

  /** Entries between two lines that say they are anchored: their lines were removed. */
  private async checkSkipped(connection: StoreConnection, after: number, before: number): Promise<void> {
    const skipped = await readAnchoredAfter(connection, after, before);
    if (skipped.length > 0)
      this.found.error(
        'host_anchor_missing',
        skipped[0]!.hash,
        `${skipped.length} host chain entries (${skipped[0]!.index} to ${skipped[skipped.length - 1]!.index}) say they are anchored, but the anchor file has no line for them`,
      );
  }
}
